/* Pads: light up on every press (SSE); virtual pads are tapped here. */
"use strict";
(() => {
  const { el, api, toast } = TT;
  const log = document.getElementById("padlog");
  document.querySelectorAll(".pad-btn").forEach((b) => b.addEventListener("click", async () => {
    const r = await api("POST", "/api/pads/press", { seat: parseInt(b.dataset.seat, 10), device: b.dataset.device });
    if (!r.ok) toast(r.data.error || "error", "bad");
  }));
  function light(p) {
    if (p.accepted !== null && p.accepted !== undefined) {
      log.prepend(el("div", { text: "seat " + p.seat + " " + p.device + (p.accepted ? " → " + p.message : " ✗ " + p.message) }));
      return;
    }
    const b = document.getElementById("pad-" + p.seat + "-" + p.device);
    if (b) { b.classList.add("lit"); setTimeout(() => b.classList.remove("lit"), 500); }
    log.prepend(el("div", { class: "press", text: new Date().toLocaleTimeString() + " · seat " + p.seat + " " + p.device + " · t=" + p.t_ns }));
    while (log.childElementCount > 40) log.lastChild.remove();
  }
  TT.stream({ pad: light }, { follow: true, pads: true });
})();
