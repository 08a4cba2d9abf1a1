#!/usr/bin/python3
"""tests/tune_svg.py BINARY: undervoltctl tune --report --svg, held against
the journal it draws.

For each journal below (written here, checksum included, as tune writes
one), the SVG must be well-formed and self-contained, have a mark for each
value tested, in the journal's order, with the outcome's class, colour and
label, lie on the axis in the order of the values, and show the choice
(lowest pass, margin, chosen value) that this test works out from the
journal; the text report must name the same values. Then a real browser
(headless Chromium) draws it: the PNG must have the SVG's size, not be
blank, and have each mark's colour at the mark's centre. Without a browser
that runs, the two drawing checks of each journal are skipped (counted as
skipped, with the reason). UNDERVOLTCTL_SVG_KEEP=DIR keeps the SVGs and
PNGs there for a person to look at.

One TAP line per check; exit status 1 when one failed.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

LABEL = "undervoltctl svg"
SVG_NS = "{http://www.w3.org/2000/svg}"
# The colours undervoltctl(8) names for each outcome, written out again
# here rather than read from the tool.
COLOUR = {
    "pass": (0x2E, 0x7D, 0x32),
    "wrong-result": (0xEF, 0x6C, 0x00),
    "stall": (0x6A, 0x1B, 0x9A),
    "machine-check": (0xC6, 0x28, 0x28),
    "taint": (0x79, 0x55, 0x48),
    "crash": (0x21, 0x21, 0x21),
}

failed = False


def tap(ok, what, skip=None):
    global failed
    if skip:
        print(f"ok - {LABEL}: {what} # SKIP {skip}")
        return
    print(f"{'ok' if ok else 'not ok'} - {LABEL}: {what}")
    if not ok:
        failed = True


def journal_text(settings, planes, results=(), verify=(), step=None,
                 state="done", crashes=0, plane_index=1, config="/x.conf"):
    """A journal as tune_journal.c writes it, with its CRC-32."""
    lines = ["# undervoltctl tune journal; see undervoltctl(8)", "version 2",
             f"state {state}", f"config {config}",
             "settings " + " ".join(str(v) for v in settings),
             f"crashes {crashes}", f"plane-index {plane_index}"]
    lines += [f"plane {p} 0" for p in planes]
    lines += [f"result {p} {mv} {o} {s}" for p, mv, o, s in results]
    lines += [f"verify {c} {k} {o} {s}" for c, k, o, s in verify]
    if step:
        lines.append(step)
    body = "\n".join(lines) + "\n"
    return body + "checksum crc32 %08x\n" % zlib.crc32(body.encode())


# settings: start step resolution runs duration margin limit max-crashes
# resume coupled
SCENARIOS = [
    {
        # The guest test's run on the unstable profile: resets below
        # -110 mV, machine checks below -105, wrong results below -100.
        "name": "a coupled CPU, done (the unstable profile's search)",
        "settings": (0, 25, 5, 1, 300, 10, -250, 3, 1, 1),
        "planes": ["core"],
        "results": [("core", 0, "pass", 300), ("core", -25, "pass", 300),
                    ("core", -50, "pass", 300), ("core", -75, "pass", 300),
                    ("core", -100, "pass", 300), ("core", -125, "crash", 12),
                    ("core", -112, "crash", 40),
                    ("core", -106, "machine-check", 85),
                    ("core", -103, "wrong-result", 150)],
        # plane: (lowest pass, chosen)
        "choice": {"core": (-100, -90)},
    },
    {
        "name": "core and cache apart, then together, done",
        "settings": (0, 25, 5, 1, 60, 10, -250, 3, 0, 0),
        "planes": ["core", "cache"],
        "plane_index": 2,
        "results": [("core", 0, "pass", 60), ("core", -25, "pass", 60),
                    ("core", -50, "stall", 31), ("core", -37, "pass", 60),
                    ("core", -43, "taint", 5), ("core", -40, "pass", 60),
                    ("cache", 0, "pass", 60), ("cache", -25, "pass", 60),
                    ("cache", -50, "pass", 60),
                    ("cache", -75, "wrong-result", 9),
                    ("cache", -62, "pass", 60), ("cache", -68, "pass", 60),
                    ("cache", -71, "machine-check", 22)],
        "verify": [(-30, -58, "wrong-result", 14), (-5, -33, "pass", 60)],
        "choice": {"core": (-40, -30), "cache": (-68, -58)},
        "together": (-5, -33),
    },
    {
        "name": "a search in its third value",
        "settings": (0, 25, 5, 3, 300, 10, -250, 3, 1, 1),
        "planes": ["core"],
        "state": "running",
        "results": [("core", 0, "pass", 900), ("core", -25, "pass", 900)],
        "step": "step core -50",
        "under_test": ("core", -50),
        "choice": {},
    },
    {
        "name": "a CPU unstable even at 0 mV",
        "settings": (0, 25, 5, 1, 300, 10, -250, 3, 0, 1),
        "planes": ["core"],
        "results": [("core", 0, "crash", 7)],
        "choice": {},
        "no_offset": True,
    },
]


def run(binary, args, tmp):
    env = dict(os.environ)
    for k in ("PROC", "DEV", "RUN"):
        env[f"UNDERVOLTCTL_{k}_ROOT"] = os.path.join(tmp, k.lower())
    return subprocess.run([binary, "--sysfs-root", os.path.join(tmp, "sys"),
                           "tune", "--state-dir", os.path.join(tmp, "state")]
                          + args, capture_output=True, text=True, env=env,
                          timeout=120)


def png_pixels(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"PNG depth {depth}, colour type {ctype}, "
                         f"interlace {interlace}: not decoded here")
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def find_browser():
    """The browser's command, or (None, why not)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path, None
    return None, "no chromium on PATH (scripts/setup installs it)"


def browser_args(browser, profile):
    return [browser, "--headless", "--disable-gpu", "--no-sandbox",
            "--hide-scrollbars", "--force-device-scale-factor=1",
            f"--user-data-dir={profile}"]


def probe_browser(browser, tmp):
    try:
        r = subprocess.run(browser_args(browser, os.path.join(tmp, "probe"))
                           + ["--dump-dom", "about:blank"],
                           capture_output=True, text=True, timeout=90)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{browser} does not run: {e}"
    if r.returncode != 0 or "<html" not in r.stdout:
        last = (r.stderr.strip().splitlines() or ["no output"])[-1]
        return f"{browser} does not run: {last}"
    return None


def marks_of(root):
    return [g for g in root.iter(SVG_NS + "g")
            if "test" in g.get("class", "").split()]


def check_scenario(binary, sc, browser, no_browser, keep):
    name = sc["name"]
    tmp = tempfile.mkdtemp(prefix="undervoltctl-svg.")
    try:
        for d in ("sys", "proc", "dev", "run"):
            os.makedirs(os.path.join(tmp, d))
        os.makedirs(os.path.join(tmp, "state"), mode=0o700)
        text = journal_text(sc["settings"], sc["planes"], sc["results"],
                            sc.get("verify", ()), sc.get("step"),
                            sc.get("state", "done"),
                            plane_index=sc.get("plane_index", 1))
        with open(os.path.join(tmp, "state", "tune.journal"), "w") as f:
            f.write(text)
        svg = os.path.join(tmp, "tune.svg")
        r = run(binary, ["--report", "--svg", svg], tmp)
        tap(r.returncode == 0 and os.path.isfile(svg) and
            f"drawn in {svg}" in r.stdout,
            f"{name}: --report --svg writes the drawing and says where")
        if r.returncode != 0 or not os.path.isfile(svg):
            sys.stdout.write("".join(f"#   {l}\n" for l in
                                     (r.stdout + r.stderr).splitlines()))
            for what in ("well-formed", "marks", "axis", "choice",
                         "report", "render", "colours"):
                tap(False, f"{name}: {what} (no drawing)")
            return
        check_svg(sc, svg, r.stdout)
        render(sc, svg, tmp, browser, no_browser, keep)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_svg(sc, svg, report):
    name = sc["name"]
    problems = []
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        tap(False, f"{name}: the SVG is well-formed XML ({e})")
        root = None
    if root is not None:
        if root.tag != SVG_NS + "svg":
            problems.append(f"root element {root.tag}")
        for el in root.iter():
            tag = el.tag.replace(SVG_NS, "")
            if tag in ("script", "image", "foreignObject", "use", "style"):
                problems.append(f"a <{tag}> element")
            for k, v in el.attrib.items():
                if k.endswith("href") or "url(" in v:
                    problems.append(f"a reference {k}={v}")
        tap(not problems, f"{name}: the SVG is well-formed and "
            "self-contained (no script, image, style or reference)")
        for p in problems:
            print(f"#   {p}")
    if root is None:
        root = ET.Element("svg")
    marks = marks_of(root)

    # A mark for each value, in the journal's order.
    want = [("plane", p, mv, o, s) for p, mv, o, s in sc["results"]]
    want += [("together", c, k, o, s) for c, k, o, s in sc.get("verify", ())]
    if "under_test" in sc:
        want.append(("under-test",) + sc["under_test"])
    problems = []
    if len(marks) != len(want):
        problems.append(f"{len(marks)} marks for {len(want)} values")
    for g, w in zip(marks, want):
        cls = g.get("class", "").split()
        label = "".join(t.text or "" for t in g.iter(SVG_NS + "text"))
        shapes = [e for e in g if e.tag in (SVG_NS + "circle",
                                              SVG_NS + "rect")]
        if w[0] == "plane":
            _, p, mv, o, s = w
            ok = (f"outcome-{o}" in cls and g.get("data-plane") == p and
                  g.get("data-mv") == str(mv) and
                  g.get("data-outcome") == o and
                  g.get("data-seconds") == str(s) and
                  f"{mv} mV: {o}, {s} s" in label and shapes and
                  shapes[0].get("fill") == "#%02x%02x%02x" % COLOUR[o])
        elif w[0] == "together":
            _, c, k, o, s = w
            ok = (f"outcome-{o}" in cls and "together" in cls and
                  g.get("data-core") == str(c) and
                  g.get("data-cache") == str(k) and
                  f"core {c}, cache {k} mV: {o}, {s} s" in label and
                  len(shapes) == 2 and
                  all(e.get("fill") == "#%02x%02x%02x" % COLOUR[o]
                      for e in shapes))
        else:
            _, p, mv = w
            ok = ("under-test" in cls and g.get("data-mv") == str(mv) and
                  g.get("data-plane") == p and
                  f"{mv} mV: under test" in label and shapes and
                  shapes[0].get("fill") == "none")
        if not ok:
            problems.append(f"{w} drawn as class={cls} "
                            f"attrs={dict(g.attrib)} label={label!r}")
    tap(not problems, f"{name}: a mark per value tested, in the journal's "
        "order, with its outcome's class, colour and label")
    for p in problems:
        print(f"#   {p}")

    # The axis: a lower value lies further left, within a panel.
    problems = []
    for plane in sc["planes"]:
        pts = sorted((int(g.get("data-mv")),
                      float(next(g.iter(SVG_NS + "circle")).get("cx")))
                     for g in marks if g.get("data-plane") == plane)
        for (v1, x1), (v2, x2) in zip(pts, pts[1:]):
            if not (x1 < x2 or (v1 == v2 and x1 == x2)):
                problems.append(f"{plane}: {v1} mV at x {x1}, "
                                f"{v2} mV at x {x2}")
    tap(not problems, f"{name}: the marks lie on the millivolt axis in the "
        "order of their values")
    for p in problems:
        print(f"#   {p}")

    # The choice: lowest pass, margin, chosen, as this test works it out.
    margin = sc["settings"][5]
    choices = {g.get("data-plane"): g for g in root.iter(SVG_NS + "g")
               if g.get("class") == "choice"}
    problems = []
    if set(choices) != set(sc["choice"]):
        problems.append(f"choices drawn for {sorted(choices)}, expected "
                        f"{sorted(sc['choice'])}")
    for plane, (lowest, chosen) in sc["choice"].items():
        g = choices.get(plane)
        if g is None:
            continue
        texts = " | ".join(t.text or "" for t in g.iter(SVG_NS + "text"))
        if (chosen != lowest + margin or g.get("data-mv") != str(chosen) or
                g.get("data-lowest") != str(lowest) or
                g.get("data-margin") != str(margin) or
                f"chosen {chosen} mV" not in texts or
                f"lowest pass {lowest} mV" not in texts or
                f"margin {margin} mV" not in texts):
            problems.append(f"{plane}: drawn {dict(g.attrib)} {texts!r}, "
                            f"expected lowest {lowest}, chosen {chosen}")
    if "together" in sc:
        c, k = sc["together"]
        tog = [g for g in root.iter(SVG_NS + "g")
               if g.get("class") == "choice together"]
        texts = " ".join(t.text or "" for g in tog
                         for t in g.iter(SVG_NS + "text"))
        if f"chosen: core {c} mV, cache {k} mV" not in texts:
            problems.append(f"together: {texts!r}")
    no_offset = [t for t in root.iter(SVG_NS + "text")
                 if t.get("class") == "no-offset"]
    if bool(no_offset) != bool(sc.get("no_offset")):
        problems.append(f"{len(no_offset)} 'no offset' notes")
    tap(not problems, f"{name}: the lowest pass, the margin and the value "
        "chosen are the journal's")
    for p in problems:
        print(f"#   {p}")

    # The text report says the same.
    problems = []
    for p, mv, o, s in sc["results"]:
        if not any(l.split() == [p, str(mv), "mV", o, str(s), "s"]
                   for l in report.splitlines()):
            problems.append(f"no line for {p} {mv} mV {o} in the report")
    tap(not problems, f"{name}: the text report names the values drawn")
    for p in problems:
        print(f"#   {p}")


def render(sc, svg, tmp, browser, no_browser, keep):
    name = sc["name"]
    what_png = f"{name}: Chromium draws it: a PNG of the SVG's size, not blank"
    what_px = f"{name}: in the drawing each mark has its outcome's colour"
    if no_browser:
        tap(True, what_png, skip=no_browser)
        tap(True, what_px, skip=no_browser)
        return
    root = ET.parse(svg).getroot()
    w, h = int(root.get("width")), int(root.get("height"))
    png = os.path.join(tmp, "tune.png")
    try:
        r = subprocess.run(browser_args(browser, os.path.join(tmp, "chrome"))
                           + [f"--screenshot={png}", f"--window-size={w},{h}",
                              "file://" + svg],
                           capture_output=True, text=True, timeout=120)
        pw, ph, px = png_pixels(png)
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        tap(False, what_png)
        print(f"#   {e}")
        tap(False, what_px)
        return
    if keep:
        os.makedirs(keep, exist_ok=True)
        base = "".join(ch if ch.isalnum() else "-" for ch in name)[:40]
        shutil.copy(svg, os.path.join(keep, base + ".svg"))
        shutil.copy(png, os.path.join(keep, base + ".png"))
    colours = {c for row in px for c in row}
    ok = (pw, ph) == (w, h) and len(colours) >= 8 and r.returncode == 0
    tap(ok, what_png)
    if not ok:
        print(f"#   {pw}x{ph} for {w}x{h}, {len(colours)} colours, exit "
              f"status {r.returncode}")

    def near(a, b, tol=12):
        return all(abs(x - y) <= tol for x, y in zip(a, b))

    problems = []
    for g in marks_of(root):
        o = g.get("data-outcome")
        for e in g:
            if e.tag == SVG_NS + "circle":
                x, y = float(e.get("cx")), float(e.get("cy"))
            elif e.tag == SVG_NS + "rect":
                x = float(e.get("x")) + float(e.get("width")) / 2
                y = float(e.get("y")) + float(e.get("height")) / 2
            else:
                continue
            got = px[int(y)][int(x)]
            if o in COLOUR:
                bad = not near(got, COLOUR[o])
            else:
                # A value under test is a grey ring: light inside (a grid
                # line may cross it), grey on the ring.
                ring = px[int(y)][int(x + 6)]
                bad = min(got) < 200 or not near(ring, (0x9E,) * 3, 40)
                got = ring if min(got) >= 200 else got
            if bad:
                problems.append(f"{o} at ({x:.0f}, {y:.0f}): "
                                f"#%02x%02x%02x" % got)
    tap(not problems, what_px)
    for p in problems:
        print(f"#   {p}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tests/tune_svg.py BINARY")
    binary = os.path.realpath(sys.argv[1])
    keep = os.environ.get("UNDERVOLTCTL_SVG_KEEP")
    tmp = tempfile.mkdtemp(prefix="undervoltctl-svg.")
    try:
        browser, no_browser = find_browser()
        if browser:
            no_browser = probe_browser(browser, tmp)
        for sc in SCENARIOS:
            check_scenario(binary, sc, browser, no_browser, keep)

        # --svg is --report's; "-" is the drawing alone on stdout.
        for d in ("sys", "proc", "dev", "run"):
            os.makedirs(os.path.join(tmp, d))
        os.makedirs(os.path.join(tmp, "state"), mode=0o700)
        sc = SCENARIOS[0]
        with open(os.path.join(tmp, "state", "tune.journal"), "w") as f:
            f.write(journal_text(sc["settings"], sc["planes"],
                                 sc["results"]))
        r = run(binary, ["--svg", os.path.join(tmp, "x.svg")], tmp)
        tap(r.returncode == 2 and "--report" in r.stderr and
            not os.path.exists(os.path.join(tmp, "x.svg")),
            "--svg without --report is refused, and says with what")
        r = run(binary, ["--report", "--svg", "-"], tmp)
        try:
            ok = (r.returncode == 0 and
                  ET.fromstring(r.stdout.split("\n", 1)[1]).tag ==
                  SVG_NS + "svg" and "search:" not in r.stdout)
        except (ET.ParseError, IndexError):
            ok = False
        tap(ok, "--report --svg - writes the drawing alone to stdout")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
