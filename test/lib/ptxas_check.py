"""Assembles llmc's PTX with ptxas -v and reports each kernel's resources.

Usage: ptxas_check.py [--arch sm_XX]... [--table] < kernels.ptx

The input is PTX as `llmc --compile-to=ptx --target=cuda:...` prints it: one
section per architecture, each introduced by a line
`// ---- llmc: PTX for sm_XX`, or plain PTX with no such line (one section,
its architecture read from `.target`).

Without --arch every section is assembled for its own architecture. With
--arch (repeatable), each named architecture assembles the section a driver
would load there: the one built for it, else the newest one built for an
older architecture (PTX is forward compatible, never backward; sm_90 PTX on
sm_80 is an error). So `--arch sm_80 --arch sm_90` on a single sm_80 section
assembles it for both.

Prints one line per kernel and architecture,
  kernel <name> <arch> regs=<N> smem=<bytes> spill_stores=<N> spill_loads=<N>
or with --table one Markdown table (which adds the stack frame). Exits 1,
after printing everything it could, on any ptxas error, on a kernel that
spills registers, or when an --arch has no section it can use.

ptxas is /usr/local/cuda/bin/ptxas unless the environment variable PTXAS
names another. Standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

SECTION_MARKER = re.compile(r"^// ---- llmc: PTX for (sm_\d+[a-z]?)\s*$")
TARGET_LINE = re.compile(r"^\s*\.target\s+(sm_\d+[a-z]?)", re.MULTILINE)

# ptxas -v lines (CUDA 12/13; the same for every architecture):
#   ptxas info    : Compiling entry function 'add_f32_v4' for 'sm_80'
#   ptxas info    : Function properties for add_f32_v4
#       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
#   ptxas info    : Used 18 registers, used 1 barriers, 512 bytes smem, ...
# "Function properties" also appears for non-entry .func callees; only
# entries are reported, so the properties are kept by function name.
COMPILING = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
PROPERTIES = re.compile(r"Function properties for (\S+)")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                   r"(\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers")
SMEM = re.compile(r"(\d+) bytes smem")


def fail_usage(message):
    sys.stderr.write("ptxas_check: error: %s\n" % message)
    sys.exit(2)


def arch_number(arch):
    """sm_90a -> 90: the generation, for ordering sections."""
    return int(re.match(r"sm_(\d+)", arch).group(1))


def split_sections(text):
    """[(arch, ptx, first_line)] in input order; first_line is the stdin
    line number of the section's first line (ptxas numbers lines within the
    section)."""
    sections = []
    current_arch, current_lines, first_line = None, [], 1
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        match = SECTION_MARKER.match(line)
        if match:
            if current_arch is not None or "".join(current_lines).strip():
                sections.append((current_arch, "".join(current_lines), first_line))
            current_arch, current_lines, first_line = match.group(1), [], number + 1
        else:
            current_lines.append(line)
    if current_arch is not None or "".join(current_lines).strip():
        sections.append((current_arch, "".join(current_lines), first_line))
    resolved = []
    for arch, ptx, first in sections:
        target = TARGET_LINE.search(ptx)
        if arch is None:
            if not target:
                fail_usage("a PTX section has neither a '// ---- llmc: PTX "
                           "for sm_XX' line nor a .target directive")
            arch = target.group(1)
        resolved.append((arch, ptx, first))
    return resolved


def plan(sections, archs):
    """[(section, assemble_arch)] and the --arch values that no section can
    serve."""
    if not archs:
        return [(section, section[0]) for section in sections], []
    jobs, unusable = [], []
    for arch in archs:
        usable = [s for s in sections if arch_number(s[0]) <= arch_number(arch)]
        if not usable:
            unusable.append(arch)
            continue
        exact = [s for s in usable if s[0] == arch]
        chosen = exact[0] if exact else max(usable, key=lambda s: arch_number(s[0]))
        jobs.append((chosen, arch))
    return jobs, unusable


def parse_verbose(output):
    """{kernel: {regs, smem, stack, spill_stores, spill_loads}} from the
    -v output of one ptxas run, entries in the order ptxas printed them."""
    kernels, frames = {}, {}
    entry, properties_of = None, None
    for line in output.splitlines():
        match = COMPILING.search(line)
        if match:
            entry = match.group(1)
            kernels[entry] = {"regs": None, "smem": 0}
            continue
        match = PROPERTIES.search(line)
        if match:
            properties_of = match.group(1)
            continue
        match = FRAME.search(line)
        if match and properties_of is not None:
            frames[properties_of] = tuple(int(g) for g in match.groups())
            properties_of = None
            continue
        match = USED.search(line)
        if match and entry is not None:
            kernels[entry]["regs"] = int(match.group(1))
            smem = SMEM.search(line)
            kernels[entry]["smem"] = int(smem.group(1)) if smem else 0
    for name, info in kernels.items():
        stack, stores, loads = frames.get(name, (0, 0, 0))
        info.update(stack=stack, spill_stores=stores, spill_loads=loads)
    return kernels


def run_ptxas(ptxas, ptx, section_arch, arch, workdir):
    """(returncode, combined stdout+stderr) of `ptxas -arch=<arch> -v`. The
    file is named after its section, which ptxas's messages quote."""
    source = os.path.join(workdir, "llmc_%s.ptx" % section_arch)
    with open(source, "w") as f:
        f.write(ptx)
    try:
        result = subprocess.run(
            [ptxas, "-arch=" + arch, "-v", source,
             "-o", os.path.join(workdir, "output.cubin")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            universal_newlines=True)
    except OSError as error:
        sys.stderr.write("ptxas_check: error: cannot run ptxas '%s': %s "
                         "(set PTXAS to its path)\n" % (ptxas, error))
        sys.exit(1)
    # Messages name the section's file, not the temporary directory.
    return result.returncode, result.stdout.replace(workdir + os.sep, "")


def print_table(rows):
    print("| kernel | arch | registers | shared memory (bytes) "
          "| stack frame (bytes) | spill stores (bytes) "
          "| spill loads (bytes) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, arch, info in sorted(rows, key=lambda r: (r[0], arch_number(r[1]))):
        print("| %s | %s | %d | %d | %d | %d | %d |" % (
            name, arch, info["regs"], info["smem"], info["stack"],
            info["spill_stores"], info["spill_loads"]))


def main():
    parser = argparse.ArgumentParser(
        description="Assemble llmc's PTX with ptxas -v; report registers, "
                    "shared memory and spills per kernel and architecture.")
    parser.add_argument("--arch", action="append", default=[],
                        help="architecture to assemble for (repeatable; "
                             "default: each section's own)")
    parser.add_argument("--table", action="store_true",
                        help="print a Markdown table")
    args = parser.parse_args()
    for arch in args.arch:
        if not re.match(r"^sm_\d+[a-z]?$", arch):
            fail_usage("--arch expects sm_XX, got '%s'" % arch)

    sections = split_sections(sys.stdin.read())
    if not sections:
        fail_usage("no PTX on stdin")
    jobs, unusable = plan(sections, args.arch)
    ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")

    errors, rows = [], []
    for arch in unusable:
        errors.append("no PTX section can run on %s (sections: %s)" % (
            arch, ", ".join(s[0] for s in sections)))
    with tempfile.TemporaryDirectory(prefix="ptxas_check.") as workdir:
        for (section_arch, ptx, first_line), arch in jobs:
            returncode, output = run_ptxas(ptxas, ptx, section_arch, arch, workdir)
            where = "%s PTX (stdin line %d on) assembled for %s" % (
                section_arch, first_line, arch)
            # Everything but the info lines (warnings, errors) goes on.
            for line in output.splitlines():
                if line.strip() and not line.startswith(("ptxas info", " ", "\t")):
                    sys.stderr.write("%s: %s\n" % (where, line))
            if returncode != 0:
                errors.append("ptxas failed on %s (exit %d)" % (where, returncode))
                continue
            kernels = parse_verbose(output)
            if not kernels:
                errors.append("ptxas reported no entry function in %s" % where)
            for name, info in sorted(kernels.items()):
                if info["regs"] is None:
                    errors.append("no register count for kernel %s in %s"
                                  % (name, where))
                    continue
                rows.append((name, arch, info))
                if info["spill_stores"] or info["spill_loads"]:
                    errors.append(
                        "kernel %s spills on %s: %d bytes spill stores, "
                        "%d bytes spill loads" % (name, arch,
                                                  info["spill_stores"],
                                                  info["spill_loads"]))

    if args.table:
        print_table(rows)
    else:
        for name, arch, info in rows:
            print("kernel %s %s regs=%d smem=%d spill_stores=%d spill_loads=%d"
                  % (name, arch, info["regs"], info["smem"],
                     info["spill_stores"], info["spill_loads"]))
    sys.stdout.flush()
    for error in errors:
        sys.stderr.write("ptxas_check: error: %s\n" % error)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
