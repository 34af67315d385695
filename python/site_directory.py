"""Prints where the focal package installs, relative to the install prefix (argv[1]):
the interpreter's own site directory for that prefix. Debian's python3 reads
/usr/lib/python3/dist-packages (scheme deb_system) and /usr/local/lib/python3.X/
dist-packages (posix_local); another prefix gets the standard lib/python3.X/site-packages."""
import os
import sys
import sysconfig

prefix = os.path.normpath(sys.argv[1])
schemes = sysconfig.get_scheme_names()
if prefix == "/usr" and "deb_system" in schemes:
    scheme, base = "deb_system", prefix
elif prefix == "/usr/local" and "posix_local" in schemes:
    scheme, base = "posix_local", "/usr"  # the scheme adds local/ itself
else:
    scheme, base = "posix_prefix", prefix
path = sysconfig.get_path("platlib", scheme, vars={"base": base, "platbase": base})
print(os.path.relpath(path, prefix))
