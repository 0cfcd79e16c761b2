/* Shared helpers: CSRF-aware JSON calls, live stream, tiny DOM builder, toasts. */
"use strict";
const TT = (() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;
  const body = document.body;

  async function api(method, url, data) {
    const opts = { method, headers: { "Accept": "application/json" }, credentials: "same-origin" };
    if (method !== "GET") {
      opts.headers["X-CSRF-Token"] = csrf();
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(data === undefined ? {} : data);
    }
    let res, json = null;
    try {
      res = await fetch(url, opts);
      json = await res.json().catch(() => null);
    } catch (err) {
      return { ok: false, status: 0, data: { error: "the referee cannot be reached: " + err } };
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
     does not fit what is held (never expected) opens a fresh stream: the whole state again. */
  const LOST_AFTER_MS = 3000;
  function stream(handlers, opts) {
    const params = new URLSearchParams();
    const game = (opts && opts.game) || body.dataset.game || "current";
    params.set("game", (opts && opts.follow) ? "current" : game);
    if (opts && opts.pads) params.set("pads", "1");
    params.set("delta", "1");
    const url = "/api/stream?" + params.toString();
    let es = null, held = null;
    const lastSeq = (s) => (s.feed.length ? s.feed[s.feed.length - 1].seq : 0);
    function state(s) {
      held = s && s.game && Array.isArray(s.feed) ? s : null;
      if (handlers.state) handlers.state(s);
    }
    function delta(d) {
      if (!held || !d.game || d.game.id !== held.game.id || d.after !== lastSeq(held) || !Array.isArray(d.feed)) {
        open();  /* a fresh EventSource sends no Last-Event-ID: the server sends the whole state */
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
    // data-live follows the stream at once; data-lost (the page's notice) only once it has
    // been down for LOST_AFTER_MS, so the routine reconnect of an old stream shows nothing
    // (retries fail every second while the server is gone: the first failure starts the clock)
    let lostTimer = null;
    function open() {
      if (es) es.close();
      held = null;
      const source = es = new EventSource(url);
      for (const [name, handle] of Object.entries(on)) {
        source.addEventListener(name, (e) => handle(JSON.parse(e.data)));
      }
      source.addEventListener("open", () => {
        body.dataset.live = "1";
        clearTimeout(lostTimer);
        lostTimer = null;
        if (body.dataset.lost) say("The connection to the referee is back.");
        delete body.dataset.lost;
      });
      source.addEventListener("error", () => {
        body.dataset.live = "0";
        if (lostTimer !== null) return;
        lostTimer = setTimeout(() => {
          lostTimer = null;
          if (body.dataset.live !== "0") return;
          // a refused stream (an error status) is not retried by the browser: say so
          body.dataset.lost = es.readyState === EventSource.CLOSED ? "stopped" : "retrying";
          say(body.dataset.lost === "stopped" ? "Live updates stopped: reload the page."
            : "The connection to the referee was lost: reconnecting.");
        }, LOST_AFTER_MS);
      });
    }
    open();
    window.addEventListener("pagehide", () => es.close());
    return { close: () => es.close(), get source() { return es; } };
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
  return { api, el, toast, tone, isPenalty, localTimes, say, stream, seatName, renderJSON, tableLines, csrf, referee: body.dataset.referee === "1" };
})();
