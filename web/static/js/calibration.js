/* Calibration: tap polygon corners on a snapshot; zones saved normalised to 0..1. Without a
   pointer: "Add corner" adds one a little way from the last, and every corner is a slider over
   the picture that the arrow keys move (Shift: further), kept inside the picture as a tap is;
   "Save zones" keeps them. "Close zone" refuses a zone with no area (its corners on top of each
   other, or in one line): it could never hold a card, and the server refuses it too; likewise
   one whose sides cross (corners tapped across it, TL TR BL BR: an hourglass), but a dryer bar,
   read as a line, may. The server also refuses card zones drawn over each other; its one line
   shows under "Save zones".
   A zone drawn, moved or deleted is only kept by "Save zones": until then the list marks it
   "(not saved)", a line under the button says so and leaving the page asks first. A camera
   that sends no picture says why above it (and is asked again every few seconds); a nearly
   black picture asks about the lens. A saved zones file's problems (an entry left out, a zone
   saving would refuse) show above the picture, and so does a camera picture of another shape
   than the one the zones were drawn on (they no longer lie where drawn). */
"use strict";
(() => {
  const { el, api, toast, say } = TT;
  const $ = (id) => document.getElementById(id);
  const canvas = $("calib"), ctx = canvas.getContext("2d");
  const img = new Image();
  /* frame: the size of the picture on the page, null before one came; drawnOn: the one the
     saved zones were drawn on (the server's "frame"), sent again when there is no picture: a
     made-up size would later read as a camera of another shape */
  let zones = [], current = [], frame = null, drawnOn = {};
  /* the points of each zone as the server last kept them (name -> JSON): what "(not saved)"
     and the leaving warning compare with */
  let saved = new Map();
  const pointsOf = (list) => new Map(list.map((z) => [z.name, JSON.stringify(z.points)]));
  const notSaved = (z) => saved.get(z.name) !== JSON.stringify(z.points);
  const unsaved = () => zones.length !== saved.size || zones.some(notSaved);
  const COLORS = { draw_pile: "#00c8ff", discard_pile: "#ffc800", seat_area: "#00dc00", dryer: "#ff00ff", dryer_bar: "#ff64b4" };
  const kindOf = (name) => name === "draw_pile" ? "draw_pile" : name.startsWith("discard") ? "discard_pile"
    : name.includes("_bar_") ? "dryer_bar" : name.endsWith("_dryer") ? "dryer" : "seat_area";
  const STEP = 0.005, FAR = 0.05;  /* an arrow key's step, with Shift: of the picture's size */
  const inside = (v) => Math.round(Math.min(1, Math.max(0, v)) * 1e4) / 1e4;
  /* a zone's area, of the picture's (shoelace); below FLAT it has none (web/services/zones.py) */
  const FLAT = 1e-6, FLAT_SAYS = "The corners are on top of each other or in one line: move them apart first";
  const area = (pts) => Math.abs(pts.reduce((sum, [x1, y1], i) => {
    const [x2, y2] = pts[(i + 1) % pts.length];
    return sum + x1 * y2 - x2 * y1;
  }, 0)) / 2;
  /* two sides cross (not merely touch), as web/services/zones.py's crosses_itself: checked
     before the area, as an exact Z's two halves cancel to no area; not for a dryer bar, read
     as the line between its ends */
  const CROSSED_SAYS = "The zone's sides cross: tap the corners going round the zone, not across it";
  const turn = (a, b, p) => (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
  const cross = (a, b, c, d) => turn(a, b, c) * turn(a, b, d) < 0 && turn(c, d, a) * turn(c, d, b) < 0;
  function crossed(pts) {
    const n = pts.length, side = (i) => [pts[i], pts[(i + 1) % n]];
    for (let i = 0; i < n; i++) {
      for (let j = i + 2; j < n; j++) {
        if (!(i === 0 && j === n - 1) && cross(...side(i), ...side(j))) return true;
      }
    }
    return false;
  }
  /* a picture of another shape than the zones were drawn on, as web/services/zones.py's
     frame_change: corners are shares of the picture, so they move */
  const ASPECT_SLACK = 0.02;
  function shapeSays(saved, width, height) {
    const { width: w, height: h } = saved || {};
    if (!(w && h && width && height) || Math.abs(width / height / (w / h) - 1) <= ASPECT_SLACK) return "";
    return "The zones were drawn on a " + w + "×" + h + " picture; the camera now sends " + width + "×" +
      height + ", another shape, so they no longer lie where they were drawn: calibrate again " +
      "(redraw the zones on this picture, then “Save zones”).";
  }
  function shapeBanner() {  /* a live region: rewritten only when its words change */
    const line = $("calib-shape"), text = frame ? shapeSays(drawnOn, frame.width, frame.height) : "";
    if (text !== line.textContent) line.textContent = text;
    line.classList.toggle("hidden", !text);
  }
  /* the saved file's problems, one line each (none: hidden), and whether it read whole */
  function problemsBanner(problems, whole) {
    const box = $("calib-problems");
    box.replaceChildren(...(problems.length ? [
      el("p", { text: "The saved zones need a look:" }),
      el("ul", {}, ...problems.map((p) => el("li", { text: p }))),
      ...(whole ? [] : [el("p", { text: "“Save zones” keeps the old file beside it as a copy, so the entries left out are not lost." })]),
    ] : []));
    box.classList.toggle("hidden", !problems.length);
  }

  function draw() {
    ctx.fillStyle = "#111"; ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (img.complete && img.naturalWidth) ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    const poly = (pts, color, closed, label) => {
      if (!pts.length) return;
      ctx.strokeStyle = color; ctx.lineWidth = 3; ctx.beginPath();
      pts.forEach(([x, y], i) => (i ? ctx.lineTo : ctx.moveTo).call(ctx, x * canvas.width, y * canvas.height));
      if (closed) ctx.closePath();
      ctx.stroke();
      pts.forEach(([x, y]) => { ctx.fillStyle = color; ctx.fillRect(x * canvas.width - 4, y * canvas.height - 4, 8, 8); });
      if (label) { ctx.fillStyle = color; ctx.font = "16px sans-serif"; ctx.fillText(label, pts[0][0] * canvas.width + 6, pts[0][1] * canvas.height + 18); }
    };
    zones.forEach((z) => poly(z.points, COLORS[kindOf(z.name)] || "#fff", true, z.name));
    poly(current, "#ffffff", false, null);
  }

  /* the words the zone menu shows for a stored name (the page renders them) */
  const labelOf = (name) => {
    const option = [...$("zone-name").options].find((o) => o.value === name);
    return option ? option.textContent : name;
  };

  function list() {
    $("zone-list").replaceChildren(...zones.map((z) => el("li", {}, el("strong", { text: labelOf(z.name) }), " ",
      el("span", { class: "muted", text: z.points.length + " points" }),
      ...(notSaved(z) ? [" ", el("em", { class: "not-saved", text: "(not saved)" })] : []))));
    $("calib-unsaved").classList.toggle("hidden", !unsaved());
  }
  /* a reload, another page or closing the tab would throw the unsaved zones away */
  window.addEventListener("beforeunload", (e) => {
    if (!unsaved()) return;
    e.preventDefault();
    e.returnValue = "";  /* older Chromium asks only when this is set */
  });

  /* the corners, one focusable slider each, over where the canvas draws them (pointer events
     pass through them to the canvas); its value reads "20% across, 35% down" */
  const pct = (v) => Math.round(v * 1000) / 10 + "%";
  const where = ([x, y]) => (x === 0 ? "left edge" : x === 1 ? "right edge" : pct(x) + " across") + ", " +
    (y === 0 ? "top edge" : y === 1 ? "bottom edge" : pct(y) + " down");
  function place(handle, p) {
    handle.style.left = p[0] * 100 + "%"; handle.style.top = p[1] * 100 + "%";
    handle.setAttribute("aria-valuenow", Math.round(p[0] * 1000) / 10);
    handle.setAttribute("aria-valuetext", where(p));
  }
  const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  function move(e, handle, p) {
    const d = ARROWS[e.key];
    if (!d || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();  /* the arrow moves the corner, not the page */
    const step = e.shiftKey ? FAR : STEP;
    p[0] = inside(p[0] + d[0] * step); p[1] = inside(p[1] + d[1] * step);
    place(handle, p); draw(); list();
  }
  function handles() {
    const owners = zones.map((z) => [z.points, labelOf(z.name)]).concat([[current, "Zone being drawn"]]);
    $("handles").replaceChildren(...owners.flatMap(([pts, label]) => pts.map((p, i) => {
      const handle = el("div", { class: "handle", role: "slider", tabindex: "0", "aria-valuemin": "0",
        "aria-valuemax": "100", "aria-label": label + ", corner " + (i + 1) + " of " + pts.length,
        "aria-describedby": "calib-keys", onkeydown: (e) => move(e, handle, p) });
      place(handle, p);
      return handle;
    })));
    $("skip-corners").hidden = !$("handles").children.length;
  }

  canvas.addEventListener("pointerdown", (e) => {
    const r = canvas.getBoundingClientRect();
    current.push([inside((e.clientX - r.left) / r.width), inside((e.clientY - r.top) / r.height)]);
    draw(); handles();
  });
  /* where "Add corner" puts the next corner: the first in the middle, then each one Shift+arrow
     (5 %) from the last, a quarter turn clockwise from the way the last one went (right, down,
     left, up), so three make a triangle; a way that would leave the picture or land on another
     corner is passed over for the next */
  const WAYS = [[1, 0], [0, 1], [-1, 0], [0, -1]];
  function lastWay() {  /* the way from the last but one corner to the last, -1: none */
    if (current.length < 2) return -1;
    const [[ax, ay], [bx, by]] = current.slice(-2), dx = bx - ax, dy = by - ay;
    if (!dx && !dy) return -1;
    return Math.abs(dx) >= Math.abs(dy) ? (dx > 0 ? 0 : 2) : (dy > 0 ? 1 : 3);
  }
  function nextCorner() {
    if (!current.length) return [0.5, 0.5];
    const [x, y] = current[current.length - 1], first = lastWay() + 1;
    const taken = (p) => current.some(([cx, cy]) => cx === p[0] && cy === p[1]);
    const fits = (v) => v > -1e-9 && v < 1 + 1e-9;
    let fallback = null;
    for (let k = 0; k < WAYS.length; k++) {
      const [dx, dy] = WAYS[(first + k) % WAYS.length];
      if (!fits(x + dx * FAR) || !fits(y + dy * FAR)) continue;
      const p = [inside(x + dx * FAR), inside(y + dy * FAR)];
      if (!taken(p)) return p;
      fallback = fallback || p;  /* every way lands on a corner: still apart from the last */
    }
    return fallback;
  }
  $("add-corner").addEventListener("click", () => {
    current.push(nextCorner());
    draw(); handles();
    $("handles").lastElementChild.focus();
  });
  $("close-zone").addEventListener("click", () => {
    if (current.length < 3) { toast("a zone needs at least 3 corners", "bad"); return; }
    const name = $("zone-name").value;
    if (kindOf(name) !== "dryer_bar" && crossed(current)) { toast(CROSSED_SAYS, "bad"); return; }
    if (area(current) < FLAT) { toast(FLAT_SAYS, "bad"); return; }
    zones = zones.filter((z) => z.name !== name).concat([{ name, points: current }]);
    current = []; draw(); list(); handles();
  });
  $("undo-point").addEventListener("click", () => { current.pop(); draw(); handles(); });
  $("delete-zone").addEventListener("click", () => {
    const name = $("zone-name").value;
    zones = zones.filter((z) => z.name !== name); draw(); list(); handles();
  });
  $("save-zones").addEventListener("click", async () => {
    const sent = pointsOf(zones);  /* a corner moved while the answer comes stays unsaved */
    const r = await api("POST", "/api/zones", { frame: frame || drawnOn, zones });
    if (r.ok) { saved = sent; drawnOn = r.data.frame || {}; list(); problemsBanner([], true); shapeBanner(); }
    const msg = $("calib-msg");
    msg.className = "banner " + (r.ok ? "ok" : "bad");
    const n = r.ok ? r.data.zones.length : 0;
    const kept = r.ok && r.data.kept_as ? " The old zones file did not read whole: it is kept as " + r.data.kept_as + "." : "";
    msg.textContent = r.ok ? "Saved " + n + (n === 1 ? " zone." : " zones.") + kept : (r.data.error || "error");
    say(msg.textContent, !r.ok);
  });
  /* what the camera says above the picture; "" hides it. The line is a live region: it is
     only rewritten when the words change, so a retry that fails again is not read out again. */
  function cameraSays(text) {
    const line = $("calib-camera");
    if (text !== line.textContent) line.textContent = text;
    line.classList.toggle("hidden", !text);
  }
  /* the picture's mean brightness (0..255), read from a small copy: a covered lens or a dark
     room gives a picture too dark to draw zones on */
  const DARK = 25;
  function brightness() {
    const small = document.createElement("canvas");
    small.width = 32; small.height = 24;
    const c = small.getContext("2d", { willReadFrequently: true });
    c.drawImage(img, 0, 0, small.width, small.height);
    const px = c.getImageData(0, 0, small.width, small.height).data;
    let sum = 0;
    for (let i = 0; i < px.length; i += 4) sum += (px[i] + px[i + 1] + px[i + 2]) / 3;
    return sum / (px.length / 4);
  }
  /* no picture: the server's answer says why (no camera yet, camera lost); asked again every
     RETRY_MS until one comes, so a camera plugged in late appears by itself */
  const RETRY_MS = 3000;
  let retry = null;
  async function noPicture(src) {
    draw();
    const asked = img.src;
    const r = await api("GET", src);
    if (img.src !== asked) return;  /* "New snapshot" asked again meanwhile */
    const why = r.data.error ? " (" + r.data.error + ")" : "";
    cameraSays("The camera sends no picture" + why + ": trying again every few seconds.");
    retry = setTimeout(snapshot, RETRY_MS);
  }
  function snapshot() {
    const src = canvas.dataset.snapshot;
    clearTimeout(retry);
    if (!src) { draw(); return; }
    img.onload = () => {
      frame = { width: img.naturalWidth, height: img.naturalHeight };
      canvas.width = img.naturalWidth; canvas.height = img.naturalHeight; draw(); shapeBanner();
      cameraSays(brightness() < DARK ? "The picture is nearly black: is the lens covered or the light off?" : "");
    };
    img.onerror = () => noPicture(src);
    img.src = src + "?t=" + Date.now();
  }
  $("refresh-snap").addEventListener("click", snapshot);
  api("GET", "/api/zones").then((r) => {
    zones = (r.data.zones || []).map((z) => ({ name: z.name, points: z.points }));
    saved = pointsOf(zones);
    drawnOn = r.data.frame || {};
    problemsBanner(r.data.problems || [], r.data.read_whole !== false);
    list(); handles(); snapshot();
  });
})();
