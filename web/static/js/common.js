/* Shared helpers: CSRF-aware JSON calls, live stream, tiny DOM builder, toasts. */
"use strict";
const TT = (() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;
  const body = document.body;

  /* A call that gets no answer in ``timeoutMs`` (10 s) is given up and says the referee
     cannot be reached: a request the browser queues behind its 6 connections to the server
     (six live tabs) or sends into a dead Wi-Fi would otherwise wait for minutes, and a tap on
     Send would show nothing. */
  const API_TIMEOUT_MS = 10000;
  /* A change that got no answer (timed out, a network error, the connection dropped as the
     server died) may have been stored all the same: a second Send would repeat it. A GET
     changes nothing; an answer the server gave (4xx/5xx) says what happened. */
  function unknownOutcome(method) {
    return method === "GET" ? "" : "; it may have been recorded: check before sending it again";
  }
  async function api(method, url, data, opts) {
    const timeoutMs = (opts && opts.timeoutMs) || API_TIMEOUT_MS;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    const init = { method, headers: { "Accept": "application/json" }, credentials: "same-origin", signal: abort.signal };
    if (method !== "GET") {
      init.headers["X-CSRF-Token"] = csrf();
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(data === undefined ? {} : data);
    }
    let res, json = null;
    try {
      res = await fetch(url, init);
      json = await res.json().catch(() => null);
    } catch (err) {
      const why = abort.signal.aborted ? "no answer in " + Math.round(timeoutMs / 1000) + " s" : String(err);
      return { ok: false, status: 0, data: { error: "the referee cannot be reached: " + why + unknownOutcome(method) } };
    } finally {
      clearTimeout(timer);
    }
    return { ok: res.ok, status: res.status, data: json || {} };
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  /* What a screen reader says: the page's two live regions (base.html), empty at load so that
     a change is heard; ``urgent`` interrupts (a refusal). The same words twice within a few
     seconds are said once (a toast and the live feed both carry an event). */
  let sayTimer = null, lastSaid = "", lastSaidAt = 0;
  function say(msg, urgent) {
    const region = document.getElementById(urgent ? "say-now" : "say");
    if (!region || !msg) return;
    const now = Date.now();
    if (msg === lastSaid && now - lastSaidAt < 3000) return;
    lastSaid = msg; lastSaidAt = now;
    region.textContent = msg;
    clearTimeout(sayTimer);
    sayTimer = setTimeout(() => { for (const id of ["say", "say-now"]) document.getElementById(id).textContent = ""; }, 8000);
  }

  /* How a set of verdicts reads, by what they carry, not by their words: "bad" when one
     refused the event (``illegal``: stored, not played), "warn" when one penalises a player,
     else "ok". A penalty is marked in the verdict's data by every engine that has one: Hit
     the Deck's and DOS's draws ({penalty: "fake_out" | "last_slap" | "no_yell" | "no_dos_call" |
     "one_card_left"}), a Wash Dash mistake
     ({mistake: true}) and the card it costs (negative {points}). */
  function isPenalty(v) {
    const d = (v && v.data) || {};
    return Boolean(d.penalty) || d.mistake === true || (typeof d.points === "number" && d.points < 0);
  }
  function tone(verdicts) {
    if ((verdicts || []).some((v) => v.outcome === "illegal")) return "bad";
    return (verdicts || []).some(isPenalty) ? "warn" : "ok";
  }

  /* <time datetime="…Z" data-local>: the server writes UTC; show the tablet's own time, in
     its own language (the UTC text stays as the tooltip). */
  function localTimes(root) {
    for (const t of (root || document).querySelectorAll("time[data-local]")) {
      const d = new Date(t.dateTime);
      if (Number.isNaN(d.getTime())) continue;
      if (!t.title) t.title = t.textContent.trim();
      t.textContent = d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    }
  }
  localTimes();

  let toastTimer = null;
  function toast(msg, kind) {
    let t = document.getElementById("toast");
    if (!t) { t = el("div", { id: "toast", class: "toast" }); document.body.append(t); }
    say(msg, kind === "bad");  /* the toast itself is no live region: it would be said twice */
    t.className = "toast " + (kind || "");
    t.textContent = msg;
    t.classList.remove("hidden");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => t.classList.add("hidden"), 4000);
  }

  /* Live updates: handlers.state(snapshot), .pad(press), .nogame(), .problem(), .prompts().
     EventSource reconnects. The stream is asked for deltas (?delta=1): after the first whole
     snapshot the server mostly sends a "delta" (the snapshot less its feed, plus the feed's
     entries after event ``after``), which is added to the snapshot held here, so a handler
     always gets a whole snapshot. Each state/delta has an id the browser sends back when it
     reconnects (Last-Event-ID): the server then sends what this page lacks, or the whole
     state when history was rewritten (undo, overrule) or the page is far behind. A delta that
     does not fit what is held (never expected) opens a fresh stream: the whole state again.

     Two more reopenings, each a fresh EventSource that gives the last id as ?last= (it cannot
     set the header), so the page catches up by a delta:
     - a watchdog: the server sends a heartbeat (a nameless message with its interval) when
       idle; a connection that dropped silently (Wi-Fi gone: no error ever comes) brings
       nothing, so after QUIET_BEATS heartbeats of silence the page says the connection is
       lost and reopens the stream;
     - a hidden tab closes its stream and reopens it when shown: a browser has 6 connections
       to a server, and six live tabs held them all (every other request then waited). */
  const LOST_AFTER_MS = 3000;
  const QUIET_BEATS = 2.5;
  const CONNECT_MS = 5000;
  function stream(handlers, opts) {
    const params = new URLSearchParams();
    const game = (opts && opts.game) || body.dataset.game || "current";
    params.set("game", (opts && opts.follow) ? "current" : game);
    if (opts && opts.pads) params.set("pads", "1");
    params.set("delta", "1");
    const url = "/api/stream?" + params.toString();
    let es = null, held = null, lastId = "";
    const lastSeq = (s) => (s.feed.length ? s.feed[s.feed.length - 1].seq : 0);
    function state(s) {
      held = s && s.game && Array.isArray(s.feed) ? s : null;
      if (handlers.state) handlers.state(s);
    }
    function delta(d) {
      if (!held || !d.game || d.game.id !== held.game.id || d.after !== lastSeq(held) || !Array.isArray(d.feed)) {
        open(false);  /* no id given: the server sends the whole state */
        return;
      }
      const s = Object.assign({}, d, { feed: held.feed.concat(d.feed) });
      delete s.after;
      state(s);
    }
    function feedless(name) {
      return (data) => { held = null; if (handlers[name]) handlers[name](data); };
    }
    const on = { state, delta, nogame: feedless("nogame"), problem: feedless("problem") };
    for (const name of ["pad", "prompts"]) if (handlers[name]) on[name] = handlers[name];

    /* the watchdog: rearmed by every message (the interval is the server's, 10 s by default;
       never under LOST_AFTER_MS, so a heartbeat late on a busy server is no loss), and while
       a stream is being opened, by the browser or here, for CONNECT_MS: the server answers at
       once, and a request the browser sent on a kept-alive connection that died with the
       Wi-Fi is never answered (each such connection is given up in turn) */
    let beatMs = 10000, watchdog = null;
    function heard(connecting) {
      clearTimeout(watchdog);
      watchdog = setTimeout(silent, connecting ? CONNECT_MS : Math.max(QUIET_BEATS * beatMs, LOST_AFTER_MS));
    }
    function silent() {
      watchdog = null;
      lost("retrying");
      open(true);
    }
    function lost(how) {
      body.dataset.live = "0";
      if (body.dataset.lost === how) return;
      body.dataset.lost = how;
      say(how === "stopped" ? "Live updates stopped: reload the page."
        : "The connection to the referee was lost: reconnecting.");
    }
    // data-live follows the stream at once; data-lost (the page's notice) only once it has
    // been down for LOST_AFTER_MS, so the routine reconnect of an old stream shows nothing
    // (retries fail every second while the server is gone: the first failure starts the clock)
    let lostTimer = null;
    function shut() {
      if (es) es.close();
      es = null;
      clearTimeout(watchdog);
      clearTimeout(lostTimer);
      watchdog = lostTimer = null;
    }
    /* ``resume``: catch up from what is held (its id as ?last=); else start from nothing.
       Every stream after the page's first gives ?last= (empty when nothing is held): the
       server then always sends the list of open questions, even empty, so one answered
       while this page was away leaves it (live.py) */
    let opened = false;
    function open(resume) {
      shut();
      if (!resume || !held || !lastId) { held = null; lastId = ""; }
      const again = opened;
      opened = true;
      const source = es = new EventSource(lastId || again ? url + "&last=" + encodeURIComponent(lastId) : url);
      heard(true);
      for (const [name, handle] of Object.entries(on)) {
        source.addEventListener(name, (e) => {
          if (source !== es) return;  /* a message of a stream closed meanwhile */
          heard();
          lastId = e.lastEventId;
          handle(JSON.parse(e.data));
        });
      }
      source.addEventListener("message", (e) => {  /* the heartbeat */
        if (source !== es) return;
        const every = (JSON.parse(e.data) || {}).heartbeat_s;
        if (every > 0) beatMs = every * 1000;
        heard();
      });
      source.addEventListener("open", () => {
        if (source !== es) return;
        heard();
        body.dataset.live = "1";
        clearTimeout(lostTimer);
        lostTimer = null;
        if (body.dataset.lost) say("The connection to the referee is back.");
        delete body.dataset.lost;
      });
      source.addEventListener("error", () => {
        if (source !== es) return;
        body.dataset.live = "0";
        // retrying (a reconnect that hangs is caught too); refused: stopped, as the page says
        if (source.readyState === EventSource.CLOSED) clearTimeout(watchdog); else heard(true);
        if (lostTimer !== null) return;
        lostTimer = setTimeout(() => {
          lostTimer = null;
          if (body.dataset.live !== "0" || source !== es) return;
          // a refused stream (an error status) is not retried by the browser: say so
          lost(source.readyState === EventSource.CLOSED ? "stopped" : "retrying");
        }, LOST_AFTER_MS);
      });
    }
    /* a tab opened in the background (middle-click, a restored session) waits to be shown */
    if (document.visibilityState === "hidden") body.dataset.live = "0"; else open(false);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") { shut(); body.dataset.live = "0"; } else if (!es) open(true);
    });
    window.addEventListener("pagehide", shut);
    window.addEventListener("pageshow", (e) => { if (e.persisted && !es) open(true); });  /* back from the cache */
    return { close: shut, get source() { return es; } };
  }

  /* "End game" takes two taps, wherever it is (console, Setup): the first arms the button
     (outlined, "Tap again to end") and ``note`` says what the second tap does; 4 s later, or
     on the second tap, it is disarmed. The second tap ends the game ``current()`` named at
     the first (null: nothing to end), so a tap is never carried over to a game started
     meanwhile; then ``ended(id)``. Returns {disarm(), armed}.
     A double tap (a double click; two quick taps on a touch screen) is not a second thought:
     its second half (the browser counts it, ``detail`` 2 and up) only keeps the button armed,
     as does Enter held down (its repeats). While the end request is in flight the button is
     locked (aria-disabled, as the console's ``once``: disabled would drop the focus). */
  const ARM_MS = 4000;
  function endGame(button, note, current, ended) {
    const label = button.textContent;
    let armedFor = null, timer = null;
    function arm(id) {
      clearTimeout(timer);
      armedFor = id === undefined ? null : id;
      const on = armedFor !== null;
      button.textContent = on ? "Tap again to end" : label;
      button.classList.toggle("armed", on);
      note.classList.toggle("hidden", !on);
      if (!on) return;
      note.textContent = "End game " + id + "? Tap the button again within " + ARM_MS / 1000 +
        " seconds: the game is filed in History and takes no more events.";
      say(note.textContent);
      timer = setTimeout(() => arm(null), ARM_MS);
    }
    async function end(id) {
      button.setAttribute("aria-disabled", "true");
      let r;
      try { r = await api("POST", "/api/games/" + id + "/end", {}); } finally { button.removeAttribute("aria-disabled"); }
      if (!r.ok) { toast(r.data.error || ("error " + r.status), "bad"); return; }
      toast("game " + id + " ended", "ok");
      ended(id);
    }
    button.addEventListener("keydown", (e) => { if (e.repeat) e.preventDefault(); });
    button.addEventListener("click", (e) => {
      if (button.getAttribute("aria-disabled") === "true") return;
      if (armedFor === null) { arm(current()); return; }
      if (e.detail > 1) return;  /* the double tap's second half */
      const id = armedFor;
      arm(null);
      end(id);
    });
    return { disarm: () => arm(null), get armed() { return armedFor !== null; } };
  }

  /* Whose move the table waits for: {seat, line, tag} for the status line ("Ann to play")
     and the player card's tag; seat null: nobody's (an ended or finished game). Wash Dash has
     no turns (everyone races at once): its scoreboard's ``turn`` is who reveals the round's
     cards (WD-13), so while a round is raced nobody is marked, and otherwise the line says
     who reveals (or, when only event cards showed, draws on). */
  function turnStatus(snap) {
    const sb = snap.scoreboard, nobody = { seat: null, line: "", tag: "" };
    const seat = sb && !sb.finished && !snap.game.ended_at && Number.isInteger(sb.turn) ? sb.turn : null;
    if (seat === null) return nobody;
    const name = sb.players[seat];
    if (snap.game.name !== "wash-dash") return { seat, line: name + " to play", tag: "turn" };
    const view = snap.view || {};
    if (view.phase === "racing") return { ...nobody, line: "everyone races" };
    if (view.phase === "draw_on") return { seat, line: name + " draws another card", tag: "reveals" };
    return { seat, line: name + (view.round ? " reveals the next round" : " reveals round 1"), tag: "reveals" };
  }

  function seatName(snap, seat) {
    if (seat === null || seat === undefined) return "";
    const p = snap && snap.game && snap.game.players;
    return p && p[seat] !== undefined ? p[seat] : "seat " + seat;
  }

  /* Render any JSON (a game's view) as nested key/value lists; card tokens as chips. With
     ``players``, a seat number under a key that names a seat ("turn": 1, "dealer": 0,
     "winners": [0, 2]) reads as the player's name: a family does not count seats from 0. */
  const CARD = /^([RYGB])(\d{1,2})$|^(W|REV|STEAL|KEEP2|D2D1|D4D3|BLOCK|SKIP|SKIP2)$/;
  const SEAT_KEYS = new Set(["turn", "dealer", "last_dealer", "seat", "owner", "by", "victim",
    "first_bonus_to", "winner", "winners", "round_winners", "active", "taken_by", "out_seat"]);
  function seatNames(value, players) {
    const name = (v) => (Number.isInteger(v) && players[v] !== undefined ? players[v] : v);
    if (Array.isArray(value) && value.every(Number.isInteger)) return value.map(name);
    return name(value);
  }
  function renderJSON(value, depth, players) {
    depth = depth || 0;
    if (value === null || value === undefined) return el("span", { class: "muted", text: "–" });
    if (Array.isArray(value)) {
      if (!value.length) return el("span", { class: "muted", text: "none" });
      if (value.every((v) => typeof v !== "object" || v === null)) {
        return el("span", {}, value.map((v) => {
          const m = typeof v === "string" && v.match(CARD);
          return el("span", { class: "chip " + (m && m[1] ? m[1] : ""), text: String(v) });
        }));
      }
      return el("div", {}, value.map((v, i) => el("div", { class: "kv" },
        el("span", { class: "k", text: "#" + i }), renderJSON(v, depth + 1, players))));
    }
    if (typeof value === "object") {
      return el("div", { class: "kv" }, Object.entries(value).map(([k, v]) => [
        el("span", { class: "k", text: k.replace(/_/g, " ") }),
        el("div", {}, renderJSON(players && SEAT_KEYS.has(k) ? seatNames(v, players) : v, depth + 1, players))]));
    }
    return el("span", { text: String(value) });
  }

  /* A game's "On the table" lines (console and scoreboard); text only: names are user input. */
  function tableLines(lines) {
    return (lines || []).map((l) => el("div", { class: "line" },
      el("dt", { text: l.label }), el("dd", { text: l.text })));
  }

  /* Pin keypads on login pages */
  return { api, el, toast, tone, isPenalty, localTimes, say, stream, endGame, turnStatus, seatName, renderJSON, tableLines, csrf, referee: body.dataset.referee === "1" };
})();
