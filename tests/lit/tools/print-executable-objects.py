"""Prints the data of every #hal.executable.object in the IR on stdin (the
PTX Nova embeds in hal.executable.source ops), for FileCheck."""

import re
import sys

for match in re.finditer(r'#hal\.executable\.object<\{data = dense<"0x([0-9A-Fa-f]+)">', sys.stdin.read()):
    sys.stdout.write(bytes.fromhex(match.group(1)).decode())
    sys.stdout.write("\n")
