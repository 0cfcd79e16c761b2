/* Referee console: state, verdict feed (accept / overrule / undo), manual event entry. */
"use strict";
(() => {
  const { el, api, toast } = TT;
  let snap = null, catalogue = {}, kind = null, seat = null, overruleTarget = null, overruleTns = null;
  /* the game an overrule being entered, or an armed End, is for: the console follows the
     current game, and another tablet may start one meanwhile (then neither goes to it) */
  let overruleGame = null;
  /* an entry overruled already is overruled again in place of the overrule in force (the
     server refuses a second one, WEB-11): its number, as the feed showed it, sent as
     ``replaces`` so that the server undoes it and overrules in one step, or does neither */
  let overruleOver = null;
  const $ = (id) => document.getElementById(id);

  /* Payload fields guessed from an event kind's one-line description. Two styles occur:
     "{card: 'R7', pile?: 'left'|'right'}" and "seat: the player; card: the card (optional)".
     In the second, every "name:" of a part (up to a ";" not in brackets) is a field ("at:
     cards lifted (optional), card: the card revealed" names two), its hint the words up to
     the next; not a "name:" in brackets ("(default: …)", "(table, optional: …)"), nor one
     after a "/" ("seat/dealer:": another word for the seat). "seat" and "t_ns" are event
     fields, not payload, and get their own controls. A hint that says "optional" or
     "default" marks its field optional. */
  const NOT_PAYLOAD = new Set(["seat", "t_ns", "payload"]);
  function guessFields(desc) {
    const out = [], seen = new Set();
    const add = (name, optional, hint) => {
      if (NOT_PAYLOAD.has(name) || seen.has(name)) return;
      seen.add(name);
      out.push({ name, optional: optional || /\b(optional|default)\b/i.test(hint), hint: hint.trim() });
    };
    const braces = desc.match(/\{(.*)\}/s);
    if (braces) {
      const re = /["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*(\??)\s*:\s*((?:\[[^\]]*\]|[^,}])*)/g;
      let f;
      while ((f = re.exec(braces[1])) !== null) add(f[1], !!f[2], f[3]);
      return out;
    }
    for (const part of desc.split(/;(?![^()]*\))/)) {  /* not at a ";" in brackets */
      const bare = part.replace(/\([^()]*\)/g, (m) => " ".repeat(m.length));  /* same length */
      const re = /(^|[\s,])([A-Za-z_][A-Za-z0-9_]*)(\??):/g, names = [];
      let f;
      while ((f = re.exec(bare)) !== null) {
        names.push({ name: f[2], optional: !!f[3], at: f.index + f[1].length, from: re.lastIndex });
      }
      names.forEach((n, i) => {
        const hint = part.slice(n.from, i + 1 < names.length ? names[i + 1].at : part.length);
        add(n.name, n.optional, hint.replace(/[\s,]*(\bor\b)?[\s,]*$/, ""));
      });
    }
    return out;
  }

  /* A field's value from what was typed, guided by its hint. Lists may be typed as tokens
     ("R3 B5", "12 12 12"); where the hint allows counts, whole numbers become numbers, and a
     lone number is the count itself ("a card list … or a count"), unless the field is one
     entry per player ("hands: … count per seat": "7 7" is two hands of 7). */
  const INT = /^-?\d+$/;
  function typed(hint, raw) {
    const text = raw.trim();
    if (text === "") return undefined;
    if (/^(int|integer|number|count|n)\b/i.test(hint) && INT.test(text)) return parseInt(text, 10);
    if (/^bool/i.test(hint)) return /^(true|yes|1|on)$/i.test(text);
    const perSeat = /\bper (player|seat)\b/i.test(hint), counts = /\bcount\b/i.test(hint);
    if (perSeat || /^\[|\blist\b|^(the |exactly the )?cards\b/i.test(hint)) {
      try { const v = JSON.parse(text); if (Array.isArray(v)) return v; } catch (e) { /* tokens */ }
      const tokens = text.split(/[\s,]+/).filter(Boolean);
      /* whole numbers are numbers (seats "0 2", "cards lifted: 30"); no card token is one */
      if (!counts && !tokens.every((t) => INT.test(t))) return tokens;
      /* "[seats]": one seat is still a list; "[cards]|count": one number is the count */
      const list = /^\[/.test(hint) && !counts;
      if (!perSeat && !list && tokens.length === 1 && INT.test(tokens[0])) return parseInt(tokens[0], 10);
      return tokens.map((t) => (INT.test(t) ? parseInt(t, 10) : t));
    }
    try { return JSON.parse(text); } catch (e) { return text; }
  }

  function syncPayload() {
    const payload = {};
    document.querySelectorAll("#fields input[data-field]").forEach((inp) => {
      const v = typed(inp.dataset.hint || "", inp.value);
      if (v !== undefined) payload[inp.dataset.field] = v;
    });
    $("payload").value = JSON.stringify(payload);
  }

  function chooseKind(k, preset) {
    kind = k;
    /* a deal's seat names its dealer (DOS-24): the seat of the last Send would override the
       rotation unasked, so a deal starts from "no seat" unless an overrule presets one */
    if (k === "deal" && !preset) chooseSeat(null);
    document.querySelectorAll("#kinds button").forEach((b) => {
      b.classList.toggle("selected", b.dataset.kind === k);
      b.setAttribute("aria-pressed", String(b.dataset.kind === k));
    });
    const desc = (catalogue.event_kinds || {})[k] || "";
    $("kind-desc").textContent = k + ": " + desc;
    const fields = guessFields(desc);
    /* a field that takes seat numbers (a target, a dealer) or one entry per seat says which
       number is whom: the seat buttons name the players only */
    const players = snap ? snap.game.players : [];
    const legend = players.map((p, i) => i + " = " + p).join(", ");
    const seatHint = (hint) => /\bseats?\b|\bper (player|seat)\b/i.test(hint) && players.length;
    $("fields").replaceChildren(...fields.map((f) => el("div", {},
      el("label", { for: "f-" + f.name, text: f.name + (f.optional ? " (optional)" : "") + " — " + f.hint }),
      el("input", { id: "f-" + f.name, "data-field": f.name, "data-hint": f.hint, oninput: syncPayload,
        "aria-describedby": seatHint(f.hint) ? "f-" + f.name + "-seats" : null }),
      seatHint(f.hint) ? el("div", { class: "muted seat-legend", id: "f-" + f.name + "-seats", text: "Seat numbers: " + legend }) : null)));
    const payload = (preset && preset.payload) || {};
    fields.forEach((f) => {
      if (payload[f.name] !== undefined) {
        const v = payload[f.name];
        $("f-" + f.name).value = Array.isArray(v) && v.every((x) => typeof x !== "object") ? v.join(" ")
          : (typeof v === "object" ? JSON.stringify(v) : String(v));
      }
    });
    $("payload").value = JSON.stringify(payload);
    $("stamp").checked = /t_ns/.test(desc) || (preset && preset.t_ns !== undefined);
  }

  function chooseSeat(s) {
    seat = s;
    const chosen = s === null || s === undefined ? "" : String(s);  /* "": the "no seat" button */
    document.querySelectorAll("#seats button").forEach((b) => {
      b.classList.toggle("selected", chosen === b.dataset.seat);
      b.setAttribute("aria-pressed", String(chosen === b.dataset.seat));
    });
  }

  function buildEntry() {
    const kinds = Object.keys(catalogue.event_kinds || {});
    $("kinds").replaceChildren(...kinds.map((k) =>
      el("button", { class: "small", "data-kind": k, onclick: () => chooseKind(k) }, k)));
    const players = snap ? snap.game.players : [];
    $("seats").replaceChildren(
      el("button", { class: "small", "data-seat": "", onclick: () => chooseSeat(null) }, "no seat"),
      ...players.map((p, i) => el("button", { class: "small", "data-seat": i, onclick: () => chooseSeat(i) }, p)));
    chooseSeat(null);  /* a new game: the last game's seat means nothing here */
    if (kind && kinds.includes(kind)) chooseKind(kind); else if (kinds.length) chooseKind(kinds[0]);
  }

  function startOverrule(item) {
    const ev = item.replacement || item.event;
    overruleTarget = item.seq;
    overruleGame = snap.game.id;
    const inForce = snap.feed.filter((f) => f.status === "meta" && f.event && f.event.kind === "overrule" &&
      (f.event.payload || {}).target === item.seq);
    overruleOver = item.status === "overruled" && inForce.length ? inForce[inForce.length - 1].seq : null;
    overruleTns = ev.t_ns === undefined ? null : ev.t_ns;
    $("entry-title").textContent = "Overrule event #" + item.seq;
    $("overrule-note").textContent = "Say what really happened instead of #" + item.seq + " (" + item.event.kind + "), then Send.";
    $("overrule-note").classList.remove("hidden");
    $("cancel-overrule").classList.remove("hidden");
    chooseSeat(ev.seat === undefined ? null : ev.seat);
    chooseKind(ev.kind, ev);
    $("entry-panel").scrollIntoView({ behavior: "smooth" });
  }

  function stopOverrule() {
    overruleTarget = null;
    overruleGame = null;
    overruleOver = null;
    $("entry-title").textContent = "Enter an event";
    $("overrule-note").classList.add("hidden");
    $("cancel-overrule").classList.add("hidden");
  }

  /* A button that changes the game is locked from its tap until the server answers: a double
     tap sent its request twice (an event logged twice, the second refused in the permanent
     log). aria-disabled, not disabled: a disabled button drops the keyboard focus to the page
     (and render() owns Send's disabled: not the referee, the game ended). */
  async function once(button, action) {
    if (button.getAttribute("aria-disabled") === "true") return null;
    button.setAttribute("aria-disabled", "true");
    try { return await action(); } finally { button.removeAttribute("aria-disabled"); }
  }

  /* to game ``gameId``: the one the tap was meant for, which need not be the one shown now */
  async function post(gameId, path, data, okMsg) {
    if (gameId === null || gameId === undefined) return null;
    const r = await api("POST", "/api/games/" + gameId + path, data);
    if (!r.ok) { toast(r.data.error || ("error " + r.status), "bad"); return null; }
    if (okMsg) toast(okMsg, "ok");
    return r.data;
  }

  /* the last Send that got no answer: {game, body, key} */
  let unanswered = null;
  function sendKey() {  /* randomUUID is only in a secure context (https, localhost) */
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function send() {
    let payload;
    try { payload = JSON.parse($("payload").value || "{}"); } catch (e) { toast("the payload is not valid JSON", "bad"); return; }
    if (!kind) { toast("choose an event kind", "bad"); return; }
    const event = { kind, payload };
    if (seat !== null && seat !== undefined) event.seat = seat;
    if (overruleTarget !== null && overruleTns !== null) event.t_ns = overruleTns;
    else if ($("stamp").checked) event.t_ns = "now";
    if (overruleTarget !== null) {
      /* refused (409) when another tablet changed the entry meanwhile; a refused correction
         (a typo) leaves the one in force, and the form open to fix it */
      const body = { target: overruleTarget, event };
      if (overruleOver !== null) body.replaces = overruleOver;
      const r = await post(overruleGame, "/overrule", body, "overruled #" + overruleTarget);
      if (r) stopOverrule();
    } else {
      const gameId = snap && snap.game.id;
      if (gameId === null || gameId === undefined) return;
      /* Each Send carries a key (LOG-4). One that got no answer (the server died, the Wi-Fi
         dropped, no answer in time) may have been stored: the same event sent again to the
         same game carries the same key, and the server stores it once ("already recorded").
         An answer forgets it. common.js's api() takes no headers: the key is in the body. */
      const body = JSON.stringify(event);
      const same = unanswered && unanswered.game === gameId && unanswered.body === body;
      const key = same ? unanswered.key : sendKey();
      const r = await api("POST", "/api/games/" + gameId + "/events", { ...event, send_key: key });
      if (r.status === 0 || r.status >= 500) unanswered = { game: gameId, body, key };
      else unanswered = null;
      if (!r.ok) { toast(r.data.error || ("error " + r.status), "bad"); return; }
      mine.add(r.data.seq);  /* its toast says it: the feed does not say it again */
      const tone = TT.tone(r.data.verdicts);  /* bad: refused (stored, not played); warn: a penalty */
      const said = r.data.verdicts.map((v) => v.reason).join(" · ");
      if (r.data.duplicate) toast("already recorded as #" + r.data.seq + (said ? ": " + said : ""), tone);
      else toast("#" + r.data.seq + " " + (tone === "bad" ? "refused: " : tone === "warn" ? "penalty: " : "") + (said || "recorded"), tone);
    }
  }

  function describeEvent(ev) {
    if (!ev) return "unreadable entry";
    let text = ev.kind;
    if (ev.seat !== undefined) text += " · " + TT.seatName(snap, ev.seat);
    const p = ev.payload || {};
    if (ev.kind === "undo") return "undo #" + p.target;
    if (ev.kind === "overrule") return "overrule #" + p.target + " → " + describeEvent(p.event);
    const keys = Object.keys(p);
    if (keys.length) text += " · " + keys.map((k) => k + "=" + (Array.isArray(p[k]) && p[k].every((x) => typeof x !== "object") ? p[k].join(" ") : JSON.stringify(p[k]))).join(", ");
    if (ev.source && ev.source !== "manual") text += " [" + ev.source + "]";
    return text;
  }

  function feedItem(item) {
    const isMeta = item.status === "meta" || item.status === "meta-undone";
    const buttons = [], gameId = snap.game.id;
    if (TT.referee && !snap.game.ended_at) {
      if (!isMeta && item.verdicts.length && item.status !== "undone" && item.review !== "accepted")
        buttons.push(el("button", { class: "small ok", "data-action": "accept", title: "The verdict stands: mark it reviewed (the game does not change)", onclick: (e) => once(e.currentTarget, () => post(gameId, "/accept", { seq: item.seq }, "accepted #" + item.seq)) }, "Accept"));
      if (!isMeta && item.event && item.status !== "undone")
        buttons.push(el("button", { class: "small", "data-action": "overrule", onclick: () => startOverrule(item) }, "Overrule"));
      /* an overruled entry's undo would change nothing (the overrule's event stands): the
         overrule's own entry has the Undo */
      if (item.status !== "undone" && item.status !== "meta-undone" && item.status !== "overruled" && item.event)
        buttons.push(el("button", { class: "small danger", "data-action": "undo", onclick: (e) => once(e.currentTarget, () => post(gameId, "/undo", { target: item.seq }, "undid #" + item.seq)) }, "Undo"));
    }
    return el("li", { class: item.status, "data-seq": item.seq },
      el("div", {}, el("span", { class: "seq", text: "#" + item.seq }),
        el("span", { class: "ev", text: describeEvent(item.event) }),
        item.status !== "ok" ? el("span", { class: "tag", text: item.status }) : null,
        item.review ? el("span", { class: "tag accepted", text: item.review }) : null),
      item.replacement ? el("div", { class: "muted", text: "→ now: " + describeEvent(item.replacement) }) : null,
      item.error ? el("div", { class: "verdict illegal", text: item.error }) : null,
      item.verdicts.map((v) => el("div", { class: "verdict " + v.outcome + (TT.isPenalty(v) ? " penalty" : "") },
        el("span", { class: "tag", text: v.outcome }), TT.isPenalty(v) ? el("span", { class: "tag penalty", text: "penalty" }) : null,
        " ", v.reason)),
      buttons.length ? el("div", { class: "row" }, buttons) : null);
  }

  /* Entries added above those in view leave them where they are: the browser's scroll
     anchoring does it (Chromium, Firefox); where there is none, the feed does it itself. */
  const ANCHORS = Boolean(window.CSS && CSS.supports && CSS.supports("overflow-anchor", "auto"));
  function firstInView(box) {
    if (box.scrollTop <= 0) return null;  /* at the top the newest entries come into view */
    const top = box.getBoundingClientRect().top, items = box.children;
    let lo = 0, hi = items.length - 1, found = null;
    while (lo <= hi) {  /* the first entry whose bottom is below the feed's top edge */
      const mid = (lo + hi) >> 1;
      if (items[mid].getBoundingClientRect().bottom > top) { found = items[mid]; hi = mid - 1; } else lo = mid + 1;
    }
    return found;
  }

  /* The feed is kept in step entry by entry, not rebuilt at every push: on a long evening a
     rebuild of 1 000 entries took ~70 ms of script (~220 ms with layout) in a desktop
     chromium, several times that on a cheap tablet, and moved the feed's scroll position and
     keyboard focus. An entry's <li> stays while the entry is the same (the same object, as
     common.js's merge of a delta keeps the entries it held, or equal JSON), is rebuilt where
     the entry changed (an undo, overrule or accept rewrites earlier entries), added where it is
     new and removed where it is gone. All are rebuilt when what an entry is drawn with besides
     itself changes (the game, its players, its end). The feed reads as a full render of it. */
  let shown = new Map(), shownFor = null;  /* seq -> { item, sig, node }; and their context */
  function renderFeed(s) {
    const box = $("feed");
    const context = JSON.stringify([s.game.id, !!s.game.ended_at, s.game.players]);
    if (context !== shownFor) { shown = new Map(); shownFor = context; }
    const next = new Map(), nodes = [];
    for (let i = s.feed.length - 1; i >= 0; i--) {
      const item = s.feed[i];
      if (next.has(item.seq)) { nodes.push(feedItem(item)); continue; }  /* never expected */
      const old = shown.get(item.seq);
      let entry = old && old.item === item ? old : null;
      if (!entry) {
        const sig = JSON.stringify(item);
        entry = old && old.sig === sig ? { item, sig, node: old.node } : { item, sig, node: feedItem(item) };
      }
      next.set(item.seq, entry);
      nodes.push(entry.node);
    }
    shown = next;
    if (!nodes.length) nodes.push(el("li", { class: "muted", text: "No events yet: enter the deal." }));
    const anchor = ANCHORS ? null : firstInView(box), anchorY = anchor && anchor.getBoundingClientRect().top;
    /* what is no longer shown goes first, so that no entry kept is moved (a move loses focus) */
    const keep = new Set(nodes), focused = document.activeElement;
    let refocus = null;
    for (const child of [...box.childNodes]) {
      if (keep.has(child)) continue;
      if (child.contains(focused) && focused.dataset.action) {
        refocus = { seq: child.dataset.seq, action: focused.dataset.action };
      }
      child.remove();
    }
    let at = box.firstChild;
    for (const node of nodes) {
      if (node === at) at = at.nextSibling;
      else box.insertBefore(node, at);
    }
    if (anchor && anchor.isConnected) box.scrollTop += anchor.getBoundingClientRect().top - anchorY;
    if (refocus) refocusFeed(next, Number(refocus.seq), refocus.action);
  }

  /* A button pressed in an entry that changed takes the focus back, not the page (the
     keyboard and a screen reader would start again at the top): the entry's same button, or
     its first (Accept). An undone entry keeps no button: the undo of it, when it is the
     newest entry, offers its own Undo (to take it back), else the feed's heading takes it. */
  function refocusFeed(next, seq, action) {
    const buttons = (entry) => (entry ? [...entry.node.querySelectorAll("button[data-action]")] : []);
    const own = buttons(next.get(seq));
    let to = own.find((b) => b.dataset.action === action) || own[0];
    const newest = next.values().next().value;  /* ``next`` runs from the newest entry */
    const ev = newest && newest.item.event;
    if (!to && ev && ev.kind === "undo" && ev.payload && ev.payload.target === seq) {
      to = buttons(newest).find((b) => b.dataset.action === "undo");
    }
    (to || $("verdicts")).focus({ preventScroll: true });
  }

  /* The game's "On the table" lines as a definition list (TT.tableLines). */
  function tableLines(lines) {
    if (!lines || !lines.length) return [el("dd", { class: "muted", text: "Nothing to show yet." })];
    return TT.tableLines(lines);
  }

  /* New events in the feed are said once (a screen reader does not hear the whole feed at
     every update); not those this tablet sent, whose toast said them, nor the feed as it was
     when the page opened. */
  const mine = new Set();
  let heardSeq = null;
  function sayNew(s, first) {
    const top = Math.max(0, ...s.feed.map((f) => f.seq));
    const fresh = first || heardSeq === null ? [] : s.feed.filter((f) => f.seq > heardSeq);
    heardSeq = first || heardSeq === null ? top : Math.max(heardSeq, top);
    if (!fresh.length) return;
    setTimeout(() => {  /* the stream may bring an event before its POST answers */
      const lines = fresh.filter((f) => !mine.has(f.seq)).map((f) => "#" + f.seq + " " + describeEvent(f.event) +
        (f.verdicts.length ? ": " + f.verdicts.map((v) => v.outcome + ", " + v.reason).join(" · ") : ""));
      if (lines.length) TT.say(lines.join(". "), fresh.some((f) => !mine.has(f.seq) && f.verdicts.some((v) => v.outcome === "illegal")));
    }, 700);
  }

  /* Wash Dash after a mistake (WD-11): the result waits for the player to give up an earlier
     task card, so the console says whose choice it waits for instead of "game over". */
  function owedForfeit(sb) {
    const owed = (sb.extra && Array.isArray(sb.extra.owed_forfeit)) ? sb.extra.owed_forfeit : [];
    if (!owed.length) return "";
    const names = owed.map((seat) => sb.players[seat]).join(" and ");
    return "waiting for " + names + " to give up an earlier task card (forfeit)";
  }

  /* Players whose seat has no pad or button at this table (real pads only): a game with more
     players than the pin map has seats gets no presses from them, and in a Hit the Deck race
     a seat that never slaps counts as last (HW-1), so the console says so and where to enter
     them. What each game uses the pads for: */
  const PAD_USE = { "hit-the-deck": ["pad", "slaps"], dos: ["button", "DOS calls"],
    "wash-dash": ["button", "done presses"] };
  let wired = null;  /* seat → the devices wired there; null: virtual pads, or not known yet */
  api("GET", "/api/pads").then((r) => {
    if (r.ok && r.data && !r.data.virtual && r.data.wired) { wired = r.data.wired; if (snap) sayUnwired(snap); }
  });
  function sayUnwired(s) {
    const use = PAD_USE[s.game.name];
    const missing = (wired && use && !s.game.ended_at)
      ? s.game.players.map((p, i) => [p, i]).filter(([, i]) => !(wired[i] || []).includes(use[0])) : [];
    $("c-unwired").classList.toggle("hidden", !missing.length);
    $("c-unwired").textContent = missing.length
      ? "No " + use[0] + " is wired for " + missing.map(([p, i]) => p + " (seat " + i + ")").join(", ")
        + " at this table: enter their " + use[1] + " here, with the time stamped." : "";
  }

  /* An ended game's recorded result (WEB-1: one ended early is won by whoever led then), as
     History counts it: "Ended: Ann wins", "Ended: Ann and Bea share the win"; "" while it runs. */
  function endedLine(s) {
    if (!s.game.ended_at) return "";
    const stored = s.game.result && s.game.result.winners;
    const names = (Array.isArray(stored) ? stored : []).map((seat) => TT.seatName(s, seat));
    if (!names.length) return "Ended: no winner";
    if (names.length === 1) return "Ended: " + names[0] + " wins";
    return "Ended: " + names.slice(0, -1).join(", ") + " and " + names[names.length - 1] + " share the win";
  }

  function render(s) {
    const first = !snap || snap.game.id !== s.game.id;
    if (snap && first) switched(snap.game.id, s.game.id);
    sayNew(s, first);
    snap = s;
    TT.promptGame(s);
    $("c-empty").classList.add("hidden");
    $("c-main").classList.remove("hidden");
    $("c-problem").classList.toggle("hidden", !s.error);
    $("c-problem").textContent = s.error || "";
    sayUnwired(s);
    $("c-title").textContent = s.game.title + " · game " + s.game.id + (s.game.ended_at ? " (ended)" : "");
    const sb = s.scoreboard, ended = endedLine(s);
    if (!sb && ended) $("c-meta").textContent = ended;  /* a log that no longer replays */
    if (sb) {
      const turn = TT.turnStatus(s);  /* nobody's once the game is over, or in a Wash Dash race */
      $("c-meta").textContent = (ended ? ended + " · " : "") + "Round " + sb.round
        + (turn.line ? " · " + turn.line : "")
        + (sb.finished && !s.game.ended_at ? " · game over: End game files it in History" : "")
        + (owedForfeit(sb) && !s.game.ended_at ? " · " + owedForfeit(sb) : "");
      $("c-score").replaceChildren(...sb.players.map((p, i) => el("div", { class: "player" + (turn.seat === i ? " turn" : ""), "data-seat": i },
        el("div", { class: "name", text: p }), el("div", { class: "total", text: sb.totals[i] }))));
    }
    $("c-table").replaceChildren(...tableLines(s.table));
    $("c-view").replaceChildren(TT.renderJSON(s.view, 0, s.game.players));
    renderFeed(s);
    if (first) {
      api("GET", "/api/catalogue").then((r) => {
        catalogue = (r.data.games || []).find((g) => g.name === s.game.name) || {};
        buildEntry();
      });
    }
    $("send").disabled = !TT.referee || !!s.game.ended_at;
    $("end-game").disabled = !TT.referee || !!s.game.ended_at;
  }

  /* Ending takes two taps (TT.endGame); the game shown at the first is the one ended. */
  const ender = TT.endGame($("end-game"), $("end-note"), () => (snap ? snap.game.id : null),
    (gameId) => { location.href = "/history/" + gameId; });

  /* The console moved on to another game (another tablet started one): an armed End and an
     overrule being entered were for the game before; they are dropped, and said so, before
     a tap meant for that game can reach the new one. */
  function switched(from, to) {
    const dropped = [];
    if (ender.armed) { ender.disarm(); dropped.push("End game " + from + " was disarmed"); }
    if (overruleTarget !== null) {
      dropped.push("the overrule of #" + overruleTarget + " in game " + from + " was dropped");
      stopOverrule();
    }
    if (dropped.length) toast("Now showing game " + to + ": " + dropped.join("; ") + ".", "warn");
  }
  $("send").addEventListener("click", () => once($("send"), send));
  /* Enter in a one-line field of the form sends it, as a form's submit would (the payload box
     is several lines: Enter there is a new line); a disabled Send ignores the click */
  $("entry-panel").addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || e.isComposing || e.shiftKey || e.ctrlKey || e.altKey || e.metaKey) return;
    if (!e.target.matches("input:not([type=checkbox]):not([type=radio]):not([type=button])")) return;
    e.preventDefault();
    $("send").click();
  });
  $("cancel-overrule").addEventListener("click", stopOverrule);

  TT.stream({
    state: render,
    nogame: () => { $("c-empty").classList.remove("hidden"); $("c-main").classList.add("hidden"); },
    problem: (p) => { $("c-problem").textContent = p.error; $("c-problem").classList.remove("hidden"); },
    prompts: TT.showPrompts,
  }, { follow: !new URLSearchParams(location.search).get("game") });
})();
