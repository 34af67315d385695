#!/usr/bin/python3
"""`cmake --install BUILD --component python --prefix PREFIX` installs a package that
/usr/bin/python3 imports from PREFIX's site directory alone (not the build tree) and that
verifies a model. Usage: test_module_install.py CMAKE BUILD_DIR WORK_DIR MODEL.focal"""
import os
import shutil
import subprocess
import sys

cmake, build, work, model = sys.argv[1:5]
prefix = os.path.join(work, "prefix")
shutil.rmtree(prefix, ignore_errors=True)
subprocess.run([cmake, "--install", build, "--component", "python", "--prefix", prefix], check=True,
               capture_output=True)
site = [os.path.join(root) for root, dirs, files in os.walk(prefix) if "__init__.py" in files and
        os.path.basename(root) == "focal"]
assert len(site) == 1, site
environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
environment["PYTHONPATH"] = os.path.dirname(site[0])
check = ("import focal, sys; assert focal.__file__.startswith(sys.argv[1]), focal.__file__; "
         "assert focal.verify(sys.argv[2])['passed']; print(focal.__file__)")
result = subprocess.run([sys.executable, "-c", check, prefix, model], env=environment, capture_output=True, text=True)
assert result.returncode == 0, result.stderr
installed = sorted(os.listdir(site[0]))
assert "__main__.py" in installed and any(f.startswith("_focal") and f.endswith(".so") for f in installed), installed
print("installed into", os.path.relpath(site[0], prefix), "and imported from there:", ", ".join(installed))
