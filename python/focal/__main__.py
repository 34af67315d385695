"""python3 -m focal COMMAND ...: the focal command-line tool, run in this process."""
import sys

from focal import main

sys.exit(main())
