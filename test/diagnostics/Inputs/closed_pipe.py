"""Runs a command whose stdout is a pipe closed after its first byte, and
prints `exit N` with the command's exit code.

usage: closed_pipe.py CMD ARGS...
"""
import subprocess
import sys

p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
p.stdout.read(1)
p.stdout.close()
print(f"exit {p.wait()}")
