"""Runs a command and fails unless it exits with the expected code.

usage: exit_code.py CODE CMD ARGS...   (stderr of CMD is copied to stdout)
"""
import subprocess
import sys

want = int(sys.argv[1])
r = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.buffer.write(r.stdout)
if r.returncode != want:
    print(f"exit_code.py: expected exit code {want}, got {r.returncode}")
    sys.exit(1)
