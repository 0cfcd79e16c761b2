/* The scoreboard: live via SSE; follows the current game unless ?game= is given. */
"use strict";
(() => {
  const { el } = TT;
  const follow = !new URLSearchParams(location.search).get("game");
  let lastTotals = null, heard;  /* undefined until the first state: what the page opened with is not said */
  document.getElementById("join-url").textContent = location.origin + "/j";

  /* The game's "On the table" lines (the console shows the same); text only, names are user input. */
  function showTable(lines) {
    document.getElementById("sb-table-panel").classList.toggle("hidden", !lines.length);
    document.getElementById("sb-table").replaceChildren(...TT.tableLines(lines));
  }

  /* " · Ann wins", " · Ann and Bea share the win", or nothing without winners */
  function winnersLine(players, winners) {
    const names = winners.filter((i) => players[i] !== undefined).map((i) => players[i]);
    if (!names.length) return "";
    if (names.length === 1) return " · " + names[0] + " wins";
    return " · " + names.slice(0, -1).join(", ") + " and " + names[names.length - 1] + " share the win";
  }

  function render(snap) {
    const problem = document.getElementById("sb-problem");
    problem.classList.toggle("hidden", !snap.error);
    problem.textContent = snap.error || "";
    document.getElementById("sb-empty").classList.add("hidden");
    const sb = snap.scoreboard;
    document.getElementById("sb-title").textContent = snap.game.title + " · game " + snap.game.id;
    showTable(snap.table || []);
    if (!sb) return;
    document.getElementById("sb-round").textContent = "Round " + sb.round;
    /* a game ended early is won by whoever led then (WEB-1): its stored result says who */
    const stored = snap.game.ended_at && snap.game.result && snap.game.result.winners;
    const winners = Array.isArray(stored) ? stored : sb.winners;
    let status = "";
    if (snap.game.ended_at) status = "· ended" + winnersLine(sb.players, winners);
    else if (sb.finished) status = "· finished" + winnersLine(sb.players, winners);
    const turn = TT.turnStatus(snap);  // nobody's in an ended or finished game, or a Wash Dash race
    if (!status && turn.line) status = "· " + turn.line;
    document.getElementById("sb-status").textContent = status;
    const box = document.getElementById("players");
    const onTurn = (i) => turn.seat === i;
    // a star for whoever is ahead; when everyone is level (as every game starts) nobody is
    const ahead = sb.leaders.length < sb.players.length ? sb.leaders : [];
    box.replaceChildren(...sb.players.map((name, i) => {
      const cls = ["player"];
      if (onTurn(i)) cls.push("turn");
      if (ahead.includes(i)) cls.push("leader");
      if (winners.includes(i)) cls.push("winner");
      if (lastTotals && lastTotals[i] !== sb.totals[i]) cls.push("flash");
      /* a per-seat list: "dashes won: 2"; a per-seat flag: its name where set ("in tiebreak") */
      const extra = Object.entries(sb.extra || {})
        .filter(([, v]) => Array.isArray(v) && v.length === sb.players.length && v[i] !== false)
        .map(([k, v]) => k.replace(/_/g, " ") + (v[i] === true ? "" : ": " + v[i])).join(" · ");
      return el("div", { class: cls.join(" "), "data-seat": i },
        onTurn(i) ? el("span", { class: "turn-tag", text: turn.tag }) : null,
        winners.includes(i) ? el("span", { class: "win-tag", text: "winner" }) : null,
        el("div", { class: "name", text: name }),
        el("div", { class: "total", text: sb.totals[i] }),
        el("div", { class: "sub", text: extra || (sb.lower_is_better ? "points (low wins)" : "points") }));
    }));
    setTimeout(() => box.querySelectorAll(".flash").forEach((n) => n.classList.remove("flash")), 600);
    lastTotals = sb.totals.slice();
    const rp = document.getElementById("sb-rounds-panel");
    rp.classList.toggle("hidden", !sb.rounds.length);
    document.getElementById("sb-rounds").replaceChildren(
      el("tr", {}, el("th", { text: "Round" }), sb.players.map((p) => el("th", { class: "num", text: p }))),
      ...sb.rounds.map((r, i) => el("tr", {}, el("td", { text: i + 1 }),
        r.map((v) => el("td", { class: "num", text: v })))));
    const last = [...snap.feed].reverse().find((f) => f.verdicts && f.verdicts.length && (f.status === "ok" || f.status === "overruled"));
    const lastBox = document.getElementById("sb-last");
    if (last && last.verdicts.length) {
      const v = last.verdicts[last.verdicts.length - 1];
      lastBox.replaceChildren(el("div", { class: "verdict " + v.outcome }, el("span", { class: "tag", text: v.outcome }), " ", v.reason));
      lastBox.classList.remove("hidden");
    } else lastBox.classList.add("hidden");
    /* a screen reader hears the newest verdict once, not the scores at every update */
    const key = last ? snap.game.id + ":" + last.seq + ":" + last.verdicts.map((x) => x.reason).join("|") : null;
    if (heard !== undefined && key !== heard && last && last.verdicts.length) {
      TT.say("#" + last.seq + " " + last.verdicts.map((x) => x.outcome + ": " + x.reason).join(" · "));
    }
    heard = key;
  }

  TT.stream({
    state: render,
    nogame: () => document.getElementById("sb-empty").classList.remove("hidden"),
    problem: (p) => { const b = document.getElementById("sb-problem"); b.textContent = p.error; b.classList.remove("hidden"); },
  }, { follow });
})();
