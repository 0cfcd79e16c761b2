/* Setup: choose a game, name the players (seat order), set options, start. */
"use strict";
(() => {
  const { el, api, toast } = TT;
  const $ = (id) => document.getElementById(id);
  let games = [], game = null;
  const saved = JSON.parse(localStorage.getItem("tt-players") || "null");
  let players = Array.isArray(saved) && saved.length ? saved : ["", ""];

  function renderPlayers() {
    $("player-list").replaceChildren(...players.map((p, i) => el("li", {},
      el("input", { value: p, placeholder: "Player " + (i + 1) + "'s name", "aria-label": "player " + (i + 1), "data-seat": i, maxlength: 40,
        oninput: (e) => { players[i] = e.target.value; } }))));
    if (game) $("player-range").textContent = "(" + game.min_players + "–" + game.max_players + ")";
  }

  function optionInput(o) {
    const id = "opt-" + o.name;
    let input;
    if (o.type === "bool") {
      input = el("input", { type: "checkbox", id, "data-opt": o.name, "data-type": o.type });
      input.checked = !!o.default;
    } else if (o.type === "choice") {
      input = el("select", { id, "data-opt": o.name, "data-type": o.type },
        o.choices.map((c, i) => el("option", { value: i, selected: JSON.stringify(c) === JSON.stringify(o.default) }, String(c))));
    } else {
      const value = o.type === "list" ? (o.default || []).join(" ") : (o.default === null ? "" : String(o.default));
      input = el("input", { id, value, "data-opt": o.name, "data-type": o.type,
        inputmode: o.type === "int" || o.type === "float" ? "decimal" : null });
    }
    return el("div", { class: "panel" },
      el("label", { for: id, class: o.type === "bool" ? "check" : null }, el("strong", { text: o.name.replace(/_/g, " ") }),
        /* the tag opens the ruling the option tunes, in words (a new tab: the form stays) */
        o.ruling ? el("a", { class: "tag", href: "/rulings/" + o.ruling, target: "_blank",
          title: "What " + o.ruling + " says", text: o.ruling }) : null),
      input, el("div", { class: "muted", text: o.description }));
  }

  function chooseGame(name) {
    game = games.find((g) => g.name === name) || null;
    document.querySelectorAll("#game-choices button").forEach((b) => {
      b.classList.toggle("selected", b.dataset.game === name);
      b.setAttribute("aria-pressed", String(b.dataset.game === name));
    });
    $("options").replaceChildren(...(game ? game.options.map(optionInput) : []));
    if (game && !game.options.length) $("options").append(el("p", { class: "muted", text: "This game has no options." }));
    fitPlayers();
    renderPlayers();
    $("setup-error").classList.add("hidden");  /* it was about the game chosen before */
    $("setup-error").textContent = "";
  }

  /* The name boxes fit the chosen game's range: the ones past its most go, empty ones
     first (names typed for another game, or remembered from the last one, are kept where
     they fit); boxes are added up to its fewest. */
  function fitPlayers() {
    if (!game) return;
    for (let i = players.length - 1; i >= 0 && players.length > game.max_players; i--) {
      if (!String(players[i] || "").trim()) players.splice(i, 1);
    }
    players.length = Math.min(players.length, game.max_players);
    while (players.length < game.min_players) players.push("");
  }

  function readOptions() {
    const out = {};
    document.querySelectorAll("[data-opt]").forEach((inp) => {
      const o = game.options.find((x) => x.name === inp.dataset.opt);
      if (o.type === "bool") out[o.name] = inp.checked;
      else if (o.type === "choice") out[o.name] = o.choices[parseInt(inp.value, 10)];
      else if (o.type === "int") out[o.name] = /^-?\d+$/.test(inp.value.trim()) ? parseInt(inp.value, 10) : inp.value;
      else if (o.type === "float") out[o.name] = isNaN(parseFloat(inp.value)) ? inp.value : parseFloat(inp.value);
      else if (o.type === "list") out[o.name] = inp.value.split(/[\s,]+/).filter(Boolean)
        .map((t) => (/^-?\d+$/.test(t) && (o.default || []).every((d) => typeof d === "number") ? parseInt(t, 10) : t));
      else out[o.name] = inp.value;
      // Only what differs from the game's default is stored with the game.
      if (JSON.stringify(out[o.name]) === JSON.stringify(o.default)) delete out[o.name];
    });
    return out;
  }

  /* Start game is locked from the tap until the server answers (a double tap started two
     games), and stays locked once the game is made: the page is on its way to the console.
     aria-disabled, not disabled: a disabled button drops the keyboard focus to the page. */
  async function start() {
    const button = $("start");
    if (button.getAttribute("aria-disabled") === "true") return;
    if (!game) { toast("choose a game", "bad"); return; }
    button.setAttribute("aria-disabled", "true");
    if (!(await create())) button.removeAttribute("aria-disabled");
  }

  async function create() {
    const names = players.map((p) => p.trim());
    const r = await api("POST", "/api/games", { game: game.name, players: names, options: readOptions() });
    if (!r.ok) {
      $("setup-error").textContent = r.data.error || ("error " + r.status);
      $("setup-error").classList.remove("hidden");
      return false;
    }
    /* remembered for next time where the browser lets it (private mode, a full quota: not) */
    try { localStorage.setItem("tt-players", JSON.stringify(names)); } catch (e) { /* fine */ }
    location.href = "/console?game=" + r.data.id;
    return true;
  }

  /* The game to offer ending: the latest, while it runs; once it has ended, an older game
     the family left running when they started it (else nothing but History would show it). */
  async function runningGame() {
    const cur = await api("GET", "/api/games/current");
    if (!cur.data.id) return null;
    const g = await api("GET", "/api/games/" + cur.data.id);
    if (!g.ok) return null;
    if (!g.data.game.ended_at) return { g, left: false };
    const all = await api("GET", "/api/games");
    const older = ((all.data && all.data.games) || []).filter((x) => !x.ended_at).pop();
    if (!older) return null;
    const o = await api("GET", "/api/games/" + older.id);
    return o.ok ? { g: o, left: true } : null;
  }

  async function showRunning() {
    const found = await runningGame();
    if (!found) return;
    const { g, left } = found;
    const box = $("running");
    // replaceChildren would print a null child as "null": only the referee gets "End it"
    const over = g.data.scoreboard && g.data.scoreboard.finished;  /* won by the rules, not yet ended */
    const label = left ? "Left running: " : over ? "Game over, not yet ended: " : "Running: ";
    const parts = [el("strong", { text: label + g.data.game.title + " · game " + g.data.game.id + " · " + g.data.game.players.join(", ") }), " ",
      el("a", { class: "btn small", href: "/console?game=" + g.data.game.id }, "Open console")];
    if (TT.referee) {  /* two taps, as on the console: "End it" sits beside "Open console" */
      const end = el("button", { class: "small danger", id: "end-running" }, "End it");
      const note = el("div", { id: "end-running-note", class: "banner warn hidden" });
      TT.endGame(end, note, () => g.data.game.id, () => box.classList.add("hidden"));
      parts.push(" ", end, note);
    }
    box.replaceChildren(...parts);
    box.classList.remove("hidden");
  }

  $("add-player").addEventListener("click", () => {
    if (!game || players.length < game.max_players) { players.push(""); renderPlayers(); }
  });
  $("remove-player").addEventListener("click", () => {
    if (players.length > (game ? game.min_players : 1)) { players.pop(); renderPlayers(); }
  });
  $("start").addEventListener("click", start);
  /* back from the console (the browser's page cache): the page it left is ready for another */
  window.addEventListener("pageshow", (e) => { if (e.persisted) $("start").removeAttribute("aria-disabled"); });

  api("GET", "/api/catalogue").then((r) => {
    games = r.data.games || [];
    $("game-choices").replaceChildren(...games.map((g) =>
      el("button", { "data-game": g.name, onclick: () => chooseGame(g.name) }, g.title)));
    if (!games.length) $("game-choices").append(el("p", { class: "muted", text: "No game rules are installed." }));
    else chooseGame(games[0].name);
  });
  showRunning();
})();
