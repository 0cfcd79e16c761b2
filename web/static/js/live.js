/* Live: camera JPEG refreshed as fast as it arrives (max ~5/s), the camera referee's status,
   a line when its zones need calibrating again, its questions (prompts.js), race timeline,
   pad presses. */
"use strict";
(() => {
  const { el } = TT;
  const $ = (id) => document.getElementById(id);
  const cam = $("cam");
  if (cam) {
    /* a hidden tab asks for no picture (it would take one of the browser's few connections
       to the server): it asks again when shown */
    const next = () => setTimeout(() => {
      if (document.hidden) document.addEventListener("visibilitychange", next, { once: true });
      else cam.src = cam.dataset.src + "?t=" + Date.now();
    }, 200);
    cam.addEventListener("load", () => { $("cam-info").textContent = "updated " + new Date().toLocaleTimeString(); next(); });
    cam.addEventListener("error", () => { $("cam-info").textContent = "no picture yet"; setTimeout(next, 1000); });
    cam.src = cam.dataset.src + "?t=" + Date.now();
  }

  /* The zones the camera reads by: a picture of another shape than they were drawn on, or a
     zones file with problems (an entry left out), says so with a way to the Calibrate page. */
  const zonesNote = $("zones-note");
  async function zonesStatus() {
    const r = await TT.api("GET", "/api/zones");
    const lines = r.ok ? [r.data.frame_changed, ...(r.data.problems || [])].filter(Boolean) : [];
    const text = lines.join(" · ");
    if (text !== zonesNote.dataset.text) {  /* a live region: rewritten only when it changes */
      zonesNote.dataset.text = text;
      zonesNote.replaceChildren(...(text ? [text + " — ", el("a", { href: zonesNote.dataset.calibrate, text: "Calibrate" })] : []));
    }
    zonesNote.classList.toggle("hidden", !text);
    setTimeout(zonesStatus, 5000);
  }
  if (zonesNote) zonesStatus();

  /* Race evidence lives in verdict data: {"evidence": [{seat, relative_ms, status}], "seats": [...]}
     directly or one level down (e.g. data.race). */
  function findRace(data) {
    if (!data || typeof data !== "object") return null;
    if (Array.isArray(data.evidence)) return data;
    for (const v of Object.values(data)) if (v && typeof v === "object" && Array.isArray(v.evidence)) return v;
    return null;
  }

  /* The camera referee: what it is doing, and a switch (referee only). */
  const refStatus = $("ref-status"), refToggle = $("ref-toggle");
  async function refereeStatus() {
    const r = await TT.api("GET", "/api/camera/status");
    const ref = r.ok ? r.data.referee : null;
    if (!ref) {
      refStatus.textContent = "Camera referee: not available";
      refToggle.disabled = true;
    } else {
      refStatus.textContent = "Camera referee: " + (ref.enabled ? ref.state : "off") +
        (ref.message ? " — " + ref.message : "") + " · " + ref.events + " events, " + ref.prompts + " questions" +
        scaleText(ref.card_scale);
      /* available again (after a restart, a Wi-Fi blip): the referee's to switch once more */
      refToggle.disabled = !TT.referee;
      if (!busy(refToggle)) refToggle.checked = ref.enabled;  /* not while a tap is on its way */
    }
    dryerStatus(ref && ref.dryers);
    setTimeout(refereeStatus, 3000);
  }
  /* The camera's card scale (VIS-11): said while measuring (again, after the cards changed
     size: a bumped camera), when frames are scaled, and when the cards look too small to
     read well even enlarged. */
  function scaleText(s) {
    if (!s) return "";
    if (s.measuring) {
      return s.drifts ? " · the cards changed size (camera moved?): measuring the card size again"
        : " · measuring the card size";
    }
    let text = "";
    if (s.scale !== null && s.scale !== 1) {
      text += " · card scale " + s.scale + (s.scale > 1 ? ", on four tiles" : "") +
        (s.fixed ? " (set)" : " (measured on " + s.cards + " cards)");
    }
    if (s.small) text += " · the cards look small: a camera mounted lower reads them better";
    return text;
  }
  /* Wash Dash: each calibrated dryer's empty picture and reading, and the button that
     retakes the empty pictures (referee only). */
  const dryerText = $("dryer-status"), dryersEmpty = $("dryers-empty");
  function dryerStatus(d) {
    if (!dryerText || !dryersEmpty) return;
    dryerText.classList.toggle("hidden", !d);
    dryersEmpty.classList.toggle("hidden", !d);
    if (!d) return;
    // covered: something that is not a piece lies over it (a hand?), so it is not read (TBL-12)
    const seats = d.seats.map((s) => "seat " + s.seat + ": " + (s.covered ? "covered (a hand?) · " : "") +
      (s.reference ? (s.dryer || "empty") + " (empty picture: " + s.reference + ")" : "no empty picture yet"));
    dryerText.textContent = "Dryers — " + (d.waiting_for_empty ? "waiting for a still look at the empty dryers · " : "") +
      seats.concat(d.problems).join(" · ");
  }
  /* A control that changes something is locked from its tap until the server answers (a
     double tap sent its request twice). aria-disabled, not disabled: a disabled control drops
     the keyboard focus to the page. */
  const busy = (control) => control.getAttribute("aria-disabled") === "true";
  function lock(control, on) {
    if (on) control.setAttribute("aria-disabled", "true"); else control.removeAttribute("aria-disabled");
  }
  if (dryersEmpty) {
    dryersEmpty.addEventListener("click", async () => {
      if (busy(dryersEmpty)) return;
      lock(dryersEmpty, true);
      const r = await TT.api("POST", "/api/camera/dryers/empty", {});
      lock(dryersEmpty, false);
      if (!r.ok) { TT.toast(r.data.error || "error", "bad"); return; }
      /* mid-round the pieces hanging now would become the dryers' background */
      if (r.data.dryers && r.data.dryers.round_on) {
        TT.toast("A round is on: the camera takes the empty dryers at its next still look, " +
          "and pieces hanging then become their background: empty them first.", "warn");
      } else {
        TT.toast("The camera takes the empty dryers at its next still look.", "ok");
      }
      dryerStatus(r.data.dryers);
    });
  }
  if (refStatus && refToggle) {
    refToggle.addEventListener("click", (e) => { if (busy(refToggle)) e.preventDefault(); });  /* stays as it is */
    refToggle.addEventListener("change", async () => {
      lock(refToggle, true);
      const r = await TT.api("POST", "/api/camera/referee", { enabled: refToggle.checked });
      if (!r.ok) { TT.toast(r.data.error || "error", "bad"); refToggle.checked = !refToggle.checked; }
      lock(refToggle, false);
    });
    refereeStatus();
  }

  let snap = null;
  function render(s) {
    snap = s;
    TT.promptGame(s);
    let race = null, reason = null;
    for (const item of [...(s.feed || [])].reverse()) {
      for (const v of item.verdicts || []) {
        const r = findRace(v.data);
        if (r) { race = r; reason = v.reason; break; }
      }
      if (race) break;
    }
    if (!race) return;
    $("race-reason").textContent = reason || race.reason || "";
    const times = race.evidence.map((e) => (typeof e.relative_ms === "number" ? e.relative_ms
      : typeof e.relative_ns === "number" ? e.relative_ns / 1e6 : null));
    const max = Math.max(1, ...times.filter((t) => t !== null).map(Math.abs));
    const marked = new Set(race.seats || []);
    $("timeline").replaceChildren(...race.evidence.map((e, i) => {
      const t = times[i];
      const row = el("div", { class: "tl-row" + (marked.has(e.seat) ? " loser" : "") + (t === null ? " missed" : "") },
        el("div", { text: TT.seatName(snap, e.seat) }),
        el("div", { class: "tl-track" }, t === null ? null : el("div", { class: "tl-bar" })),
        el("div", { class: "num" }, t === null ? (e.status || "missed") : t.toFixed(1) + " ms",
          marked.has(e.seat) ? el("span", { class: "tag", text: race.kind === "last_slapper" || !race.kind ? "last" : "first" }) : null));
      const bar = row.querySelector(".tl-bar");
      if (bar) bar.style.width = Math.max(2, (100 * Math.abs(t)) / max) + "%";
      return row;
    }));
  }

  function pad(p) {
    const line = el("div", { text: (p.device + " · " + TT.seatName(snap, p.seat)) +
      (p.accepted === true ? " → " + p.message : p.accepted === false ? " ✗ " + p.message : "") });
    $("presses-none").classList.add("hidden");
    $("presses").prepend(line);
    while ($("presses").childElementCount > 30) $("presses").lastChild.remove();
  }
  TT.stream({ state: render, pad, prompts: TT.showPrompts }, { follow: true, pads: true });
})();
