#!/usr/bin/env python3
"""Checks that a model's kernels can run on a GPU and give the same bits there as on the host.

    rsmc_check_model.py HEADER... [-I DIR]... [--nvcc NVCC [--device-flags "-IDIR|-IDIR..."]]

The engine calls a model's initial, transition, log_likelihood and simulate_observation inside
data-parallel kernels, on the host and on a device. Two rules hold for them and for every function of
the model's headers that they call (docs/models.md):
  - host-device: each is marked RSMC_HOST_DEVICE (or a Kokkos function macro), or a GPU build cannot
    call it;
  - rsmc-math: exp, log, sin, cos, pow, lgamma and the other transcendental functions come from
    rsmc::math, never from std:: or the C library, whose last bits differ between machines and
    between the host and a GPU; other std:: functions are not device code at all (sqrt, fabs, floor
    and the like are exact everywhere and allowed).
Each problem is one line, "FILE:LINE: CLASS::MEMBER: what (rule)", and the exit status is 1.

The scan reads the source text (comments and strings removed), so it needs no GPU and no CUDA; it
follows the #include "..." of the model's own headers (found next to the including file or under a
-I directory), not rsmc's (base/, kernels/, framework/, drivers/). With --nvcc, a header that passes
the scan is also compiled for the device: a kernel that calls the four members of every model class
it defines (class templates excepted), so that the compiler's own checks apply too; its errors are
reported one line each.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

KERNEL_MEMBERS = ("initial", "transition", "log_likelihood", "simulate_observation")
DEVICE_MARKERS = ("RSMC_HOST_DEVICE", "RSMC_VECTOR_INLINE", "KOKKOS_INLINE_FUNCTION", "KOKKOS_FUNCTION",
                  "KOKKOS_FORCEINLINE_FUNCTION", "__device__")
# Functions of the C library whose results differ in their last bits between libm versions, CPU code
# paths and the CUDA device library (docs/math.md): rsmc::math has its own.
TRANSCENDENTAL = {
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sin", "cos", "tan", "sincos", "asin",
    "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "lgamma", "tgamma", "erf",
    "erfc", "cbrt", "hypot", "expf", "logf", "powf", "sinf", "cosf", "lgammaf", "tgammaf"}
# std:: functions a kernel may call: exact or correctly rounded everywhere, or no arithmetic at all.
STD_ALLOWED = {
    "sqrt", "fabs", "abs", "floor", "ceil", "trunc", "round", "nearbyint", "rint", "ldexp", "frexp", "scalbn",
    "copysign", "fmin", "fmax", "fma", "min", "max", "isnan", "isinf", "isfinite", "signbit", "swap", "move",
    "forward"}
STD_TYPE = re.compile(r"u?int(8|16|32|64)_t|size_t|ptrdiff_t|uintptr_t|intptr_t")
KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype", "static_assert",
            "noexcept", "new", "delete", "throw", "operator", "defined", "alignas", "typeid"}
RSMC_TREES = ("base/", "kernels/", "framework/", "drivers/")


def strip_code(text):
    """The text with comments, string and character literals and preprocessor lines blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        at_line_start = c == "\n"
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n - 1) - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching(code, i, open_ch, close_ch):
    """The index of the bracket that closes the one at i."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] == open_ch:
            depth += 1
        elif code[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


class Function:
    def __init__(self, path, line, scope, name, prefix, body, body_start):
        self.path, self.line, self.scope, self.name = path, line, scope, name
        self.prefix, self.body, self.body_start = prefix, body, body_start

    def title(self):
        return f"{self.scope}::{self.name}" if self.scope else self.name


class Source:
    """One header: its code, class and namespace spans, and function definitions."""

    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8", errors="replace") as f:
            self.text = f.read()
        self.code = strip_code(self.text)
        self.scopes = []  # (start, end, kind, name)
        for m in re.finditer(r"\b(namespace)\s+([\w:]+)\s*\{|\b(struct|class)\s+(\w+)\b[^;{()]*\{", self.code):
            kind, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            start = m.end() - 1
            self.scopes.append((start, matching(self.code, start, "{", "}"), kind, name))
        self.templates = {name for (s, e, kind, name) in self.scopes if kind != "namespace" and
                          re.search(r"template\s*<[^;{}]*>\s*$", self.code[:self.code.rfind(kind, 0, s)])}
        self.functions = self._functions()

    def line_of(self, index):
        return self.code.count("\n", 0, index) + 1

    def enclosing(self, index, kinds):
        names = [name for (s, e, kind, name) in self.scopes if s < index < e and kind in kinds]
        return "::".join(names)

    def _functions(self):
        found, i = [], 0
        pattern = re.compile(r"(~?\b[A-Za-z_]\w*)\s*\(")
        while True:
            m = pattern.search(self.code, i)
            if not m:
                return found
            name = m.group(1)
            close = matching(self.code, m.end() - 1, "(", ")")
            after = re.match(r"(\s|const\b|noexcept\b|override\b|final\b|->\s*[\w:<>,\s*&]+?(?=\{))*\{",
                             self.code[close + 1:])
            if name in KEYWORDS or not after:
                i = m.end()
                continue
            body_start = close + 1 + after.end() - 1
            body_end = matching(self.code, body_start, "{", "}")
            cut = max(self.code.rfind(ch, 0, m.start()) for ch in ";{}")
            prefix = self.code[cut + 1:m.start()]
            prefix = re.sub(r"^.*\b(public|private|protected)\s*:(?!:)", "", prefix, flags=re.S)
            scope = self.enclosing(m.start(), ("struct", "class"))
            qualified = re.search(r"(\w+)\s*::\s*$", prefix)
            if qualified:  # a member defined outside its class: Class::name(...) {
                scope = qualified.group(1)
            elif name.startswith("~") or re.search(r"[=.>,:]\s*$|\breturn\s*$", prefix.rstrip()):
                # a destructor, a constructor's member initialiser, or a call followed by a braced
                # block: not a function the kernels call
                i = body_end + 1 if name.startswith("~") else m.end()
                continue
            found.append(Function(self.path, self.line_of(m.start()), scope, name, prefix,
                                  self.code[body_start:body_end + 1], body_start))
            i = body_end + 1

    def own_includes(self, include_dirs):
        """The headers this one includes with quotes that are the model's own (not rsmc's), as paths."""
        out = []
        for inc in re.findall(r'^\s*#\s*include\s*"([^"]+)"', self.text, flags=re.M):
            if inc.startswith(RSMC_TREES):
                continue
            for d in [os.path.dirname(self.path)] + include_dirs:
                p = os.path.join(d, inc)
                if os.path.isfile(p):
                    out.append(os.path.normpath(p))
                    break
        return out


def load(headers, include_dirs):
    sources, todo = {}, [os.path.normpath(h) for h in headers]
    while todo:
        p = todo.pop()
        if p in sources:
            continue
        try:
            sources[p] = Source(p)
        except OSError as e:
            sys.exit(f"rsmc_check_model: cannot read {p}: {e.strerror}")
        todo += sources[p].own_includes(include_dirs)
    return sources


def calls(body):
    """(qualifier, name, offset) of every call in a body; qualifier '' when unqualified, '::' for ::name."""
    out = []
    for m in re.finditer(r"(?<![\w.>])((?:[A-Za-z_]\w*::|::)*)([A-Za-z_]\w*)\s*(<[^;(){}]*?>)?\s*\(", body):
        preceding = body[:m.start()].rstrip()
        if preceding.endswith(".") or preceding.endswith("->"):
            continue  # a member of another object (a stream, a parameter struct): not a free function
        out.append((m.group(1), m.group(2), m.start(2)))
    return out


def problems_of(sources):
    """One line per problem of the kernel members and of the functions of these headers that they call,
    and the names of the functions checked."""
    functions = [f for s in sources.values() for f in s.functions]
    by_name = {}
    for f in functions:
        by_name.setdefault(f.name, []).append(f)
    uses_math = {p: bool(re.search(r"using\s+namespace\s+(rsmc::)?math\s*;", s.code)) for p, s in sources.items()}
    problems = []
    reached = {}  # Function -> the kernel member it is reached from
    todo = [(f, f) for f in functions if f.scope and f.name in KERNEL_MEMBERS]
    while todo:
        f, root = todo.pop()
        if f in reached:
            continue
        reached[f] = root
        for qualifier, name, _ in calls(f.body):
            if qualifier in ("", "this::") or qualifier.rstrip(":").split("::")[-1] not in ("std", "math"):
                for g in by_name.get(name, []):
                    if g.name not in KEYWORDS:
                        todo.append((g, root))
    for f, root in sorted(reached.items(), key=lambda item: (item[0].path, item[0].line)):
        source = sources[f.path]
        where = f"{os.path.basename(f.path)}:{f.line}: {f.title()}"
        via = "" if f is root else f" (called from {root.title()})"
        if not any(marker in f.prefix for marker in DEVICE_MARKERS):
            problems.append(f"{where}{via}: not marked RSMC_HOST_DEVICE, so a GPU build cannot call it "
                            "(rule host-device)")
        for qualifier, name, offset in calls(f.body):
            line = source.line_of(f.body_start + offset)
            where = f"{os.path.basename(f.path)}:{line}: {f.title()}"
            q = qualifier.rstrip(":")
            if name in TRANSCENDENTAL and not q.endswith("math") and (q or not uses_math[f.path]):
                if q in ("", "std") or qualifier == "::":
                    shown = (qualifier or "") + name
                    problems.append(f"{where}{via}: calls {shown}; use rsmc::math::{name}, the same bits on every "
                                    "host and on a GPU (rule rsmc-math)")
            elif q == "std" and name not in STD_ALLOWED and not STD_TYPE.fullmatch(name):
                problems.append(f"{where}{via}: calls std::{name}, which is not device code; kernels call "
                                "rsmc::math and exact functions such as sqrt (rule rsmc-math)")
    return problems, [f.title() for f in reached]


def model_classes(sources, first):
    """Qualified names of the classes of `first` that define all four kernel members (not templates)."""
    source = sources[first]
    members = {}
    for f in source.functions:
        if f.scope and f.name in KERNEL_MEMBERS:
            members.setdefault(f.scope, set()).add(f.name)
    out = []
    for (s, e, kind, name) in source.scopes:
        if kind == "namespace" or name in source.templates:
            continue
        scope = source.enclosing(s + 1, ("struct", "class"))
        if members.get(scope, set()) >= set(KERNEL_MEMBERS):
            namespaces = source.enclosing(s, ("namespace",))
            out.append(f"{namespaces}::{scope}" if namespaces else scope)
    return out


DEVICE_KERNEL = """
#include "{header}"
template <class Model>
__global__ void rsmc_check_model_kernel(const Model* model, double* x, double* to, double* y) {{
  rsmc::rng::ModelStream rng(1, rsmc::rng::Purpose::propagate, 1, 0);
  model->initial(rsmc::StateView{{x, 1}}, rng);
  model->transition(rsmc::ConstStateView{{x, 1}}, rsmc::StateView{{to, 1}}, 1, rng);
  y[0] = model->log_likelihood(rsmc::ConstStateView{{to, 1}}, rsmc::ObservationView{{y, 1}}, 1);
  model->simulate_observation(rsmc::ConstStateView{{to, 1}}, rsmc::ObservationOut{{y, 1}}, 1, rng);
}}
"""


def device_problems(header, classes, nvcc, flags):
    """The device compiler's errors for a kernel calling the four members of each class, one line each."""
    text = DEVICE_KERNEL.format(header=os.path.abspath(header))
    for c in classes:
        text += f"template __global__ void rsmc_check_model_kernel<{c}>(const {c}*, double*, double*, double*);\n"
    with tempfile.TemporaryDirectory() as tmp:
        cu = os.path.join(tmp, "check_model.cu")
        with open(cu, "w") as f:
            f.write(text)
        command = [nvcc, "-std=c++17", "-x", "cu", "--expt-relaxed-constexpr", "-c", cu, "-o",
                   os.path.join(tmp, "check_model.o")] + flags
        done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 0:
        return []
    errors = [line.strip() for line in (done.stdout + done.stderr).splitlines()
              if "error" in line and "detected in the compilation" not in line]
    out = []
    for e in errors or ["the device compile failed: " + " ".join(command)]:
        # nvcc says both of a host function called from device code; one line for it
        m = re.search(r'calling a __host__ function\("([^"(]*)|identifier "([^"]*?)(?: const)?" is undefined in device', e)
        if m:
            line = (f"{os.path.basename(header)}: {m.group(1) or m.group(2)}: not callable on the device: mark it "
                    "RSMC_HOST_DEVICE (rule host-device)")
        else:
            line = f"{os.path.basename(header)}: device compile: {e}"
        if line not in out:
            out.append(line)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("headers", nargs="+", help="the model's headers")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[],
                        help="where the model's own #include \"...\" are found (besides the including file's folder)")
    parser.add_argument("--nvcc", help="also compile the model for the device with this nvcc")
    parser.add_argument("--device-flags", default="", help="nvcc's include flags, '|'-separated")
    parser.add_argument("--device-only", action="store_true",
                        help="report the device compile's problems alone, without the scan's (tests the device path)")
    args = parser.parse_args()
    sources = load(args.headers, args.include_dirs)
    problems, checked = problems_of(sources)
    if args.device_only:
        problems = []
    if not checked:
        problems.append(", ".join(args.headers) + ": no class member initial, transition, log_likelihood or "
                        "simulate_observation found: not a model header (rule model)")
    if not problems and args.nvcc:
        flags = [f for f in args.device_flags.split("|") if f]
        for header in args.headers:
            classes = model_classes(sources, os.path.normpath(header))
            if classes:
                problems += device_problems(header, classes, args.nvcc, flags)
    for p in problems:
        print(f"rsmc_check_model: {p}", file=sys.stderr)
    if problems:
        return 1
    headers = ", ".join(os.path.basename(h) for h in args.headers)
    device = " and compile for the device" if args.nvcc else ""
    print(f"rsmc_check_model: {headers}: {len(checked)} kernel functions follow the rules{device}: "
          + ", ".join(sorted(checked)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
