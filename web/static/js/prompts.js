/* The camera's questions (prompts), and the pads' (a held Wash Dash press), on the Live and
   Referee pages, under a heading that says who asks ("Questions" when both do). The list
   arrives over the page's own live stream (SSE "prompts", the whole list each time), so a
   question answered on one tablet disappears on every other. Accept sends the suggested event
   (its original time) through the API, another answer's button that answer's event (a
   take-back question's "Another G7 was played"); a play seen while nobody was on turn gets
   one button per player instead. Dismiss only clears the question. A tap on a question the
   server no longer has (a 404: answered while this page was away) takes it off this page. */
"use strict";
(() => {
  const { el, api, toast } = TT;
  const $ = (id) => document.getElementById(id);
  let game = null, seen = null, opened = 0, shown = [];

  function who(seat) {
    return seat === null || seat === undefined ? "nobody" : TT.seatName(game ? { game } : null, seat);
  }

  /* Who asks: the pads' questions (a held Wash Dash press) are the referee's own, not the
     camera's, though no camera may be there at all. */
  function asker(p) {
    return p.asker === "pads" ? "The referee asks" : "The camera asks";
  }

  /* A Wash Dash dryer state in its compact text: "dress:yellow+blue / pants:red / -". */
  function dryer(d) {
    return d.bars.map((bar) => bar.map((h) => h.piece + ":" + h.pins.join("+")).join("; ") || "-").join(" / ");
  }

  function describe(ev) {
    const p = ev.payload || {};
    const value = (v) => (Array.isArray(v) ? v.join(" ") : v && Array.isArray(v.bars) ? dryer(v) : v);
    const parts = Object.keys(p).map((k) => k + " " + value(p[k]));
    return [ev.kind, ev.seat === undefined ? null : who(ev.seat), ...parts].filter(Boolean).join(" · ");
  }

  /* One answer per question at a time: a double tap's second request found the question
     gone and said "already answered on another tablet". */
  const answering = new Set();

  async function answer(p, action, body) {
    if (answering.has(p.id)) return;
    answering.add(p.id);
    let r;
    try {
      r = await api("POST", "/api/games/" + p.game_id + "/prompts/" + p.id + "/" + action, body || {});
    } finally {
      answering.delete(p.id);
    }
    if (r.status === 404) { gone(p); return; }
    if (!r.ok) { toast(r.data.error || ("error " + r.status), "bad"); return; }
    if (action === "accept") {
      toast("#" + r.data.seq + " " + ((r.data.verdicts || []).map((v) => v.reason).join(" · ") || "recorded"), "ok");
    }
  }

  /* The server has no such open question: answered on another tablet (or dismissed, or
     lost with a restart) while this page missed the list that said so. It leaves the list
     here, else it could never be cleared. */
  function gone(p) {
    toast("already answered on another tablet", "warn");
    TT.showPrompts({ game_id: p.game_id, prompts: shown.filter((q) => q.id !== p.id) });
  }

  /* A play the camera saw while nobody was on turn names no player: the tablet asks whose. */
  function needsSeat(ev) {
    return Boolean(ev && game && ev.seat == null && (ev.kind === "play" || ev.kind === "discard"));  // seat null or left out
  }

  /* One button per player, each sending ``body`` with that seat: "Ana", or "label: Ana". */
  function seatButtons(p, body, label, off, extra) {
    return game.players.map((name, i) => el("button", {
      class: "small ok", "data-action": "accept", "data-seat": i, disabled: off, ...extra,
      onclick: () => answer(p, "accept", { ...body, seat: i }) }, label ? label + ": " + name : name));
  }

  function item(p) {
    const s = p.suggestion;
    const off = !TT.referee;
    const buttons = [];
    if (s && (p.prompt === "who_played" || needsSeat(s)) && game) {
      buttons.push(...seatButtons(p, {}, p.prompt === "who_played" ? null : "Yes", off, {}));
    } else if (s && p.prompt === "which_group") {
      const input = el("input", { type: "number", min: "0", value: "0", class: "group", "aria-label": "group number" });
      buttons.push(el("label", { text: "group " }, input));
      buttons.push(el("button", { class: "small ok", "data-action": "accept", disabled: off,
        onclick: () => answer(p, "accept", { payload: { group: parseInt(input.value, 10) || 0 } }) }, "Accept"));
    } else if (s) {
      buttons.push(el("button", { class: "small ok", "data-action": "accept", disabled: off,
        onclick: () => answer(p, "accept") },
        p.prompt === "same_card" ? "Yes, send it" : p.prompt === "taken_back" ? "Undo it" : "Accept"));
    }
    (p.answers || []).forEach((a) => {
      if (needsSeat(a.event)) {
        buttons.push(...seatButtons(p, { answer: a.name }, a.label, off, { "data-answer": a.name }));
      } else {
        buttons.push(el("button", { class: "small ok", "data-action": "accept", "data-answer": a.name,
          disabled: off, onclick: () => answer(p, "accept", { answer: a.name }) }, a.label));
      }
    });
    buttons.push(el("button", { class: "small", "data-action": "dismiss", disabled: off,
      onclick: () => answer(p, "dismiss") }, "Dismiss"));
    const sure = typeof p.confidence === "number" ? Math.round(p.confidence * 100) + "% sure" : null;
    return el("li", { class: "prompt", "data-prompt": p.id },
      el("div", { class: "ev", text: p.message }),
      el("div", { class: "muted", text: [p.asker === "pads" ? "pads" : "camera", sure, s ? "suggests " + describe(s) : p.answers && p.answers.length ? null : "enter it on the Referee page"].filter(Boolean).join(" · ") }),
      el("div", { class: "row" }, buttons));
  }

  /* Called by the page with every game snapshot: names for the seat buttons. */
  TT.promptGame = (snap) => {
    const next = snap && snap.game ? snap.game : null;
    if (!opened) opened = Date.now();
    const switched = next && game && next.id !== game.id;
    game = next;
    if (switched) TT.showPrompts({ game_id: next.id, prompts: [] });  // another game's list
  };

  TT.showPrompts = (data) => {
    const list = $("prompts"), panel = $("prompt-panel");
    if (!list || !panel) return;
    if (game && data.game_id !== game.id) return;
    const items = data.prompts || [];
    /* a new question is said once; those waiting when the page opened (the stream sends them
       just after its first state, when there are any) are on the page */
    const opening = seen === null && (!opened || Date.now() - opened < 1500);
    const fresh = opening ? [] : items.filter((p) => !(seen && seen.has(p.game_id + ":" + p.id)));
    seen = new Set(items.map((p) => p.game_id + ":" + p.id));
    shown = items;
    if (fresh.length) TT.say(fresh.map((p) => asker(p) + ": " + p.message).join(" "));
    list.replaceChildren(...items.slice().reverse().map(item));
    const heading = $("prompt-heading"), askers = new Set(items.map(asker));
    if (heading && askers.size) heading.textContent = askers.size > 1 ? "Questions" : [...askers][0];
    panel.classList.toggle("hidden", items.length === 0);
  };
})();
