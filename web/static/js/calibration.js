/* Calibration: tap polygon corners on a snapshot; zones saved normalised to 0..1. */
"use strict";
(() => {
  const { el, api, toast } = TT;
  const $ = (id) => document.getElementById(id);
  const canvas = $("calib"), ctx = canvas.getContext("2d");
  const img = new Image();
  let zones = [], current = [], frame = { width: 640, height: 480 };
  const COLORS = { draw_pile: "#00c8ff", discard_pile: "#ffc800", seat_area: "#00dc00", dryer: "#ff00ff", dryer_bar: "#ff64b4" };
  const kindOf = (name) => name === "draw_pile" ? "draw_pile" : name.startsWith("discard") ? "discard_pile"
    : name.includes("_bar_") ? "dryer_bar" : name.endsWith("_dryer") ? "dryer" : "seat_area";

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
      el("span", { class: "muted", text: z.points.length + " points" }))));
  }

  canvas.addEventListener("pointerdown", (e) => {
    const r = canvas.getBoundingClientRect();
    const x = Math.min(1, Math.max(0, (e.clientX - r.left) / r.width));
    const y = Math.min(1, Math.max(0, (e.clientY - r.top) / r.height));
    current.push([Math.round(x * 1e4) / 1e4, Math.round(y * 1e4) / 1e4]);
    draw();
  });
  $("close-zone").addEventListener("click", () => {
    if (current.length < 3) { toast("a zone needs at least 3 corners", "bad"); return; }
    const name = $("zone-name").value;
    zones = zones.filter((z) => z.name !== name).concat([{ name, points: current }]);
    current = []; draw(); list();
  });
  $("undo-point").addEventListener("click", () => { current.pop(); draw(); });
  $("delete-zone").addEventListener("click", () => {
    const name = $("zone-name").value;
    zones = zones.filter((z) => z.name !== name); draw(); list();
  });
  $("save-zones").addEventListener("click", async () => {
    const r = await api("POST", "/api/zones", { frame, zones });
    const msg = $("calib-msg");
    msg.className = "banner " + (r.ok ? "ok" : "bad");
    msg.textContent = r.ok ? "Saved " + r.data.zones.length + " zones." : (r.data.error || "error");
  });
  function snapshot() {
    const src = canvas.dataset.snapshot;
    if (!src) { draw(); return; }
    img.onload = () => {
      frame = { width: img.naturalWidth, height: img.naturalHeight };
      canvas.width = img.naturalWidth; canvas.height = img.naturalHeight; draw();
    };
    img.onerror = () => draw();
    img.src = src + "?t=" + Date.now();
  }
  $("refresh-snap").addEventListener("click", snapshot);
  api("GET", "/api/zones").then((r) => {
    zones = (r.data.zones || []).map((z) => ({ name: z.name, points: z.points }));
    list(); snapshot();
  });
})();
