// The cuttle-search board: draws what the server sends and sends back what the person
// chose. It applies no rule: legal moves, their notation and the cards each one touches
// come from the server; a click highlights the moves that touch the clicked card.
'use strict';

const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';
const SUIT = { C: '\u2663', D: '\u2666', H: '\u2665', S: '\u2660' };
const SEAT_COLOURS = ['#2c7fb8', '#1b9e77', '#7570b3', '#66a61e', '#e7298a', '#a6761d', '#666666', '#17becf'];  // none red, orange or yellow: those mark the labels
const LABEL_COLOURS = { blunder: '#c0392b', mistake: '#e67e22', inaccuracy: '#f1c40f' };

const state = {
  ws: null, meta: null, nextId: 1,
  game: null, selected: null, cursor: -1, digits: '', digitTimer: null, confirmNew: false,
  hintUpdates: 0, analysisUpdates: 0, timing: null,
  position: null, review: null, reviewIndex: -1,
  loadedText: null, loading: null,  // the Analyse box's text on the board; the load asked for ({id, text})
  jobs: { hint: null, analyse: null, review: null },  // each pane's running request: answers to an older one are stale
};

// ------------------------------------------------------------ small helpers
function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith('svg:') ? document.createElementNS(SVGNS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined) continue;
    if (k === 'class') node.setAttribute('class', v);
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}
const fmt = (x, d = 3) => (x === null || x === undefined ? '-' : Number(x).toFixed(d));
const took = (s) => (s === null || s === undefined ? '-' : s < 0.0005 ? 'under 1 ms'
  : s < 0.1 ? `${Math.round(s * 1000)} ms` : `${Number(s).toFixed(s < 10 ? 2 : 1)} s`);  // (5 ms, not 0.00 s)
const counted = (n, noun, plural) => `${n} ${n === 1 ? noun : (plural || noun + 's')}`;
const seatNumber = (seat) => Number(String(seat).slice(1));

function showError(msg) {
  const box = $('error');
  box.textContent = msg.field ? `${msg.error}` : String(msg.error || msg);
  box.dataset.field = msg.field || '';
  box.hidden = false;
}
// a refused or failed request: its message, and its pane no longer says it is working
const STATUS_OF = { hint: 'hint-status', analyse: 'an-result-status', solve: 'an-result-status', review: 'rv-status' };
const STOP_OF = { hint: 'hint-stop', analyse: 'an-stop', solve: 'an-stop', review: 'rv-stop' };
function onError(msg) {
  showError(msg);
  if (msg.for === 'play') delete $('play-moves').dataset.waiting;
  if (!current(msg.for, msg)) return;  // (an older request's: the pane's running one goes on)
  if (STOP_OF[msg.for]) $(STOP_OF[msg.for]).disabled = true;
  if (STATUS_OF[msg.for]) $(STATUS_OF[msg.for]).textContent = 'not done: see the error message';
}
// whether an Analyse or Review answer is to the pane's running request (a preempted one's
// last answer arrives after the next request was sent: it must not end the new one)
const PANE_OF = { hint: 'hint', analyse: 'analyse', solve: 'analyse', review: 'review' };
// (an answer with no id, to a line the server could not read, is taken as the pane's)
const current = (kind, msg) => !PANE_OF[kind] || msg.id === null || msg.id === undefined || state.jobs[PANE_OF[kind]] === msg.id;

// a job the server stopped (asked to, or for a newer request): its pane says so, not "working"
function onStopped(msg) {
  if (!current(msg.for, msg)) return;
  if (STOP_OF[msg.for]) $(STOP_OF[msg.for]).disabled = true;
  const status = STATUS_OF[msg.for] && $(STATUS_OF[msg.for]);
  if (status && msg.for !== 'hint') {  // (a stopped hint keeps the table it had: its status says how far it got)
    status.textContent = 'stopped';
    status.dataset.final = '1';
  }
}
function clearError() { $('error').hidden = true; $('error').textContent = ''; }

function send(message) {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN) { showError('not connected to the server'); return null; }
  clearError();
  message.id = state.nextId++;
  const text = JSON.stringify(message);
  const most = state.meta ? state.meta.limits.maxRequestBytes : null;
  const size = new Blob([text]).size;  // (UTF-8 bytes, as the server counts them: escapes included)
  if (most !== null && size > most) {
    showError(`request: ${size.toLocaleString()} bytes, above the server's limit of ${most.toLocaleString()} (a smaller file or text)`);
    return null;
  }
  state.ws.send(text);
  return message.id;
}

// ------------------------------------------------------------ cards
function cardSvg(item, opts = {}) {
  const text = typeof item === 'string' ? item : item.card;
  const w = opts.small ? 30 : 44, h = opts.small ? 42 : 62;
  const svg = el('svg:svg', { class: 'card', width: w, height: h, viewBox: '0 0 44 62' });
  if (text === '??') {
    svg.append(el('svg:rect', { class: 'face back', x: 1, y: 1, width: 42, height: 60, rx: 4, fill: '#8a3b3b', stroke: '#eee', 'stroke-width': 1 }));
    svg.append(el('svg:rect', { x: 6, y: 6, width: 32, height: 50, rx: 2, fill: 'none', stroke: '#d9b3b3', 'stroke-dasharray': '3 2' }));
    svg.setAttribute('data-hidden', '1');
    return svg;
  }
  const rank = text[0] === 'T' ? '10' : text[0];
  const joker = text[0] === 'X';
  const suit = joker ? '\u2605' : SUIT[text[1]] || '?';
  const red = !joker && (text[1] === 'H' || text[1] === 'D');
  const colour = joker ? '#6a1b9a' : red ? '#c62828' : '#1a1a1a';
  svg.setAttribute('data-card', text);
  svg.append(el('svg:rect', { class: 'face', x: 1, y: 1, width: 42, height: 60, rx: 4, fill: '#fffdf7', stroke: '#555', 'stroke-width': 1 }));
  svg.append(el('svg:text', { x: 4, y: 14, 'font-size': 12, 'font-weight': 700, fill: colour, text: joker ? text : rank }));
  svg.append(el('svg:text', { x: 4, y: 26, 'font-size': 11, fill: colour, text: suit }));
  svg.append(el('svg:text', { x: 22, y: 48, 'font-size': 22, 'text-anchor': 'middle', fill: colour, text: suit }));
  const tip = [text];
  if (item.by) tip.push(`played by ${item.by}`);
  if (item.to) tip.push(`gives control to ${item.to}`);
  svg.append(el('svg:title', { text: tip.join(', ') }));
  return svg;
}

function stackNode(item, opts) {
  const box = el('div', { class: 'stack' });
  box.append(cardSvg(item, opts));
  for (const on of item.on || []) box.append(cardSvg(on, opts));
  return box;
}

function zone(label, items, opts = {}) {
  const row = el('div', { class: 'zone' }, el('span', { class: 'label', text: label }));
  if (!items.length) row.append(el('span', { class: 'muted', text: '-' }));
  for (const item of items) row.append(opts.stacks ? stackNode(item, opts) : cardSvg(item, opts));
  return row;
}

// ------------------------------------------------------------ the board
// opts.play: the play page's board, where the log's "human" is the person at the page
function renderBoard(container, board, players, opts = {}) {
  container.replaceChildren();
  const seats = Object.fromEntries(board.seats.map((s) => [s.seat, s]));
  const bottom = board.order[board.order.length - 1];
  const seatBlock = (seat) => {
    const s = seats[seat];
    const name = s.player || (players && players[seat]) || '';
    const bits = [seat + (name ? ` (${name === 'human' && opts.play ? 'you' : name})` : ''), `${s.pointsTotal}/${s.goal} points`];
    if (s.partner) bits.push(`partner ${s.partner}`);
    if (board.view === seat) bits.push('your view');
    if (s.frozen && s.frozen.length) bits.push(`frozen ${s.frozen.join(' ')}`);
    const block = el('div', { class: 'seat' + (board.actor === seat ? ' actor' : ''), 'data-seat': seat },
      el('div', { class: 'who', text: bits.join(' · ') }));
    block.append(zone('points', s.points, { stacks: true }), zone('royals', s.royals, { stacks: true }));
    if (s.controls.length) {  // stacks this seat took, drawn under the seat that played them
      const row = el('div', { class: 'zone taken' }, el('span', { class: 'label', text: 'controls' }));
      for (const c of s.controls) row.append(cardSvg(c.card, { small: true }), el('span', { class: 'muted', text: ` of ${c.from} ` }));
      block.append(row);
    }
    block.append(zone(`hand (${s.hand.length})`, s.hand, { stacks: true }));
    if (s.counters.length) block.append(zone('waiting', s.counters, { small: true }));
    return block;
  };
  for (const seat of board.order.slice(0, -1)) container.append(seatBlock(seat));
  const middle = el('div', { class: 'middle' });
  const deck = el('div', {}, el('div', { class: 'label', text: `deck ${board.deckCount}` }));
  if (board.deckCount) deck.append(cardSvg('??', { small: true }));
  for (const c of board.deckShown.slice(0, 8)) deck.append(cardSvg(c, { small: true }));
  middle.append(deck);
  middle.append(el('div', {}, el('div', { class: 'label', text: `scrap ${board.scrap.length}` }),
    ...board.scrap.map((c) => cardSvg(c, { small: true }))));
  const p = board.pending;
  if (p.oneOff || board.twos.length || board.revealed.length || p.scuttle || p.response) {
    const box = el('div', {}, el('div', { class: 'label', text: 'pending' }));
    if (p.oneOff) box.append(cardSvg(p.oneOff), el('span', { text: p.oneOffTarget ? ` → ${p.oneOffTarget}` : '' }));
    for (const t of board.twos) box.append(cardSvg(t, { small: true }));
    if (p.scuttle) box.append(cardSvg(p.scuttle.cardId), el('span', { text: ` scuttles ${p.scuttle.targetId}` }));
    if (p.response) box.append(el('span', { text: `answer window: ${p.response}` }));
    if (board.revealed.length) box.append(el('span', { text: ' revealed: ' }), ...board.revealed.map((c) => cardSvg(c)));
    middle.append(box);
  }
  if (board.removed.length) middle.append(el('div', { class: 'label', text: `out of the game: ${board.removed.join(' ')}` }));
  container.append(middle, seatBlock(bottom));
  container.append(el('div', { class: 'muted', text: `${board.rules} · turn ${board.turn} · ${board.decision}` +
    (opts.seed !== undefined && opts.seed !== null ? ` · seed ${opts.seed}` : '') }));
}

// ------------------------------------------------------------ play
function gameMoves() { return state.game && state.game.myTurn ? state.game.moves : []; }

function candidates() {
  const moves = gameMoves();
  return state.selected ? moves.filter((m) => m.touches.includes(state.selected)) : moves;
}

function paintSelection() {
  const cands = candidates();
  const touched = new Set(cands.flatMap((m) => m.touches));
  document.querySelectorAll('#play-board svg.card').forEach((svg) => {
    const card = svg.dataset.card;
    svg.classList.toggle('selected', !!state.selected && card === state.selected);
    svg.classList.toggle('target', !!state.selected && card !== state.selected && touched.has(card));
  });
  const shown = new Set(cands.map((m) => m.n));
  document.querySelectorAll('#play-moves li').forEach((li, i) => {
    li.classList.toggle('dim', !!state.selected && !shown.has(Number(li.dataset.n)));
    li.classList.toggle('cursor', i === state.cursor);
  });
}

function playMove(move) {
  if ($('play-moves').dataset.waiting) return;  // one move at a time: the last is on its way
  state.selected = null;
  state.cursor = -1;
  if (send({ type: 'play', move: move.text }) !== null) $('play-moves').dataset.waiting = '1';
}

function onCardClick(card) {
  const moves = gameMoves();
  if (!moves.length || !card) return;
  if (state.selected === card) {  // a second click: its one move, if it has only one
    const own = moves.filter((m) => m.touches.includes(card));
    if (own.length === 1) { playMove(own[0]); return; }
    state.selected = null; paintSelection(); return;
  }
  if (state.selected) {
    const both = moves.filter((m) => m.touches.includes(state.selected) && m.touches.includes(card));
    if (both.length === 1) { playMove(both[0]); return; }
    if (both.length > 1) { paintSelection(); return; }
  }
  if (moves.some((m) => m.touches.includes(card))) state.selected = card;
  paintSelection();
}

function renderGame(game) {
  const another = !state.game || ['seedText', 'rules', 'seat'].some((k) => state.game[k] !== game[k]) ||
    JSON.stringify(state.game.players) !== JSON.stringify(game.players);
  if (another) {
    // the form shows the game being played (a resumed one's rules, seat and opponents come from its log)
    if (![...$('rules').options].some((o) => o.value === game.rules)) {  // (a resumed game's rules with options: one such entry at a time)
      $('rules').querySelectorAll('option[data-resumed]').forEach((o) => o.remove());
      $('rules').append(el('option', { value: game.rules, text: game.rules, 'data-resumed': '1' }));
    }
    $('rules').value = game.rules;
    $('seat').value = game.seat;
    const others = Object.entries(game.players).filter(([seat]) => seat !== game.seat).map(([, spec]) => spec);
    $('opponents').value = others.every((spec) => spec === others[0]) ? others[0] : others.join('; ');
  }
  state.game = game;
  state.selected = null;
  state.cursor = game.moves.length ? 0 : -1;
  state.digits = '';
  if (!game.partial) delete $('play-moves').dataset.waiting;  // (partial: the opponents are still moving)
  renderBoard($('play-board'), game.board, game.players, { play: true, seed: game.seedText });
  $('play-board').dataset.ply = game.ply;
  const r = game.result;
  let status;
  if (game.over) {
    const share = r.share === 1 ? 'you win' : r.share === 0 ? 'you lose' : `your share ${fmt(r.share, 2)}`;
    const winners = r.winners;  // (every seat of the winning side: session.result's)
    status = `game over: ${r.status}, ${winners.length ? winners.join(' and ') + (winners.length > 1 ? ' win' : ' wins') : 'nobody wins'}: ${share}`;
  } else status = game.myTurn ? `your decision: ${game.board.phaseWords}` : game.board.decision;
  $('play-status').textContent = status;
  $('play-status').dataset.over = game.over ? '1' : '0';
  const list = $('play-moves');
  list.replaceChildren(...game.moves.map((m) => el('li', { 'data-n': m.n, text: m.text, onclick: () => playMove(m) })));
  const events = $('events');
  events.replaceChildren(...game.events.map((e) => el('li', {
    text: `${e.mover}${e.player ? ' (' + (e.player === 'human' ? 'you' : e.player) + ')' : ''}: ${e.told}` +
      e.notes,
  })));
  events.scrollTop = events.scrollHeight;
  $('undo').disabled = !game.canUndo;
  $('download').disabled = false;
  $('hint').disabled = !game.myTurn;
  $('hint-table').replaceChildren();
  $('hint-status').textContent = '';
  paintSelection();
}

// ------------------------------------------------------------ ranked moves (hint and analyse)
function bar(m, seats, viewer) {
  const w = 90, h = 12;
  const svg = el('svg:svg', { width: w, height: h, class: 'bar' });
  svg.append(el('svg:rect', { x: 0, y: 0, width: w, height: h, fill: '#e6e6e6' }));
  const stacked = seats > 2 && m.sideShares;  // every side's share, with the search's interval
  const shown = stacked ? m : honest(m);
  if (stacked) {
    let x = 0;
    const mine = (s) => s.seats.includes(viewer);  // the interval is the viewer's side's: its segment first
    [...m.sideShares.filter(mine), ...m.sideShares.filter((s) => !mine(s))].forEach(({ seats: side, share }) => {
      svg.append(el('svg:rect', { x, y: 0, width: share * w, height: h, fill: SEAT_COLOURS[seatNumber(side[0]) % 8] },
        el('svg:title', { text: `${side.join('+')} ${fmt(share)}` })));
      x += share * w;
    });
  } else {
    // the honest figure where the answer has it: the calibrated score and its interval
    svg.append(el('svg:rect', { x: 0, y: 0, width: shown.score * w, height: h, fill: '#2c7fb8', class: 'fill' }));
  }
  const { lcb, ucb } = shown;
  if (lcb !== undefined && ucb !== undefined) {
    svg.append(el('svg:line', { x1: lcb * w, x2: ucb * w, y1: h / 2, y2: h / 2, stroke: '#000', 'stroke-width': 1.5 }));
    svg.append(el('svg:line', { x1: lcb * w, x2: lcb * w, y1: 2, y2: h - 2, stroke: '#000' }));
    svg.append(el('svg:line', { x1: ucb * w, x2: ucb * w, y1: 2, y2: h - 2, stroke: '#000' }));
  }
  return svg;
}

// a move's bar figures: the calibrated score and interval where the answer has them (the
// map fitted on self-play), else the search's own
function honest(m) {
  if (m.calibratedScore === undefined) return { score: m.score, lcb: m.lcb, ucb: m.ucb };
  return { score: m.calibratedScore, lcb: m.calibratedLcb, ucb: m.calibratedUcb };
}

function seatLegend(seats) {  // seats, or sides written p0+p2 (coloured as their first seat)
  const box = el('span', { class: 'legend' });
  seats.forEach((seat) => box.append(el('span', { class: 'swatch', style: `background:${SEAT_COLOURS[seatNumber(seat.split('+')[0]) % 8]}` }),
    el('span', { text: seat + ' ' })));
  return box;
}

// the honest figures beside the search's score, each shown when the answer has it:
// [header, field, cell class] (calibratedScore: the map fitted on self-play; bestReplyScore:
// the opponent's best replies backed up, two sides)
const HONEST_COLUMNS = [['calibrated', 'calibratedScore', 'calibrated'], ['best reply', 'bestReplyScore', 'best-reply']];

// a move's line after the move itself; the moves from the first that shows a card the viewer
// cannot see (pvKnown) are in brackets: they follow the deals the search guessed
const GUESSED_TITLE = 'in brackets: moves past a card you cannot see, as the search\'s guessed deals played them';
function lineText(m) {
  const pv = m.pv || [];
  const cut = Math.max(m.pvKnown === undefined || m.pvKnown === null ? pv.length : m.pvKnown, 1);
  const seen = pv.slice(1, cut).join(' · ');
  const guessed = pv.slice(cut);
  if (!guessed.length) return seen;
  return (seen ? seen + ' · ' : '') + '[' + guessed.join(' · ') + ']';
}

function renderRanked(table, moves, seats, onPick, viewer) {
  const extra = HONEST_COLUMNS.filter(([, field]) => moves.some((m) => m[field] !== undefined));
  const solved = moves.some((m) => 'proven' in m);  // the exact solver ran (nothing hidden)
  const calibratedBar = seats <= 2 && moves.some((m) => m.calibratedScore !== undefined);
  const head = el('tr', {}, ...['#', 'move', seats > 2 ? 'shares by side' : calibratedBar ? 'win rate (calibrated)' : 'win rate', 'score', '95% interval',
    ...extra.map(([name]) => name), 'visits', ...(solved ? ['proven'] : []), 'line'].map((t) => el('th', { text: t })));
  // onPick: the move's cell is a button that plays it (only the button: a click elsewhere on
  // the row, to read its line or copy a figure, plays nothing)
  const moveCell = (m) => (onPick ? el('td', { class: 'move' }, el('button', { class: 'pick', title: 'play this move', text: m.move, onclick: () => onPick(m) }))
    : el('td', { class: 'move', text: m.move }));
  const rows = moves.map((m, i) => el('tr', { class: 'row', 'data-move': m.move },
    el('td', { text: String(i + 1) }), moveCell(m), el('td', {}, bar(m, seats, viewer)),
    el('td', { class: 'num', text: fmt(m.score) }), el('td', { class: 'num', text: `${fmt(m.lcb, 2)}-${fmt(m.ucb, 2)}` }),
    ...extra.map(([, field, cls]) => el('td', { class: `num ${cls}`, text: fmt(m[field]) })),
    el('td', { class: 'num', text: String(m.visits) }),
    ...(solved ? [el('td', { class: 'proven', text: m.proven ? `${m.proven}${m.plies !== undefined && m.plies !== null ? ' in ' + m.plies : ''}` : '' })] : []),
    el('td', { class: 'pv', text: lineText(m), title: GUESSED_TITLE })));
  table.replaceChildren(head, ...rows);
  if (seats > 2 && moves.length && moves[0].sideShares) {
    const caption = el('caption', { class: 'muted' }, 'shares of the games below each move: ', seatLegend(moves[0].sideShares.map((s) => s.seats.join('+'))));
    table.prepend(caption);
  }
}

function onHint(msg) {
  if (!current('hint', msg)) return;
  const n = state.game ? state.game.board.seats.length : 2;
  if (msg.partial) state.hintUpdates += 1;
  if (state.timing) state.timing.updates.push([performance.now(), !!msg.partial]);  // for benchmarks/web.py
  const status = $('hint-status');
  status.dataset.updates = String(state.hintUpdates);
  status.dataset.final = msg.partial ? '0' : '1';
  const ri = msg.rootInfo;
  status.textContent = (msg.partial ? `searching… ${ri.iterations.toLocaleString()} iterations` :
    `${ri.iterations.toLocaleString()} iterations in ${took(ri.seconds)} (${ri.stopReason})`) + ` · ${msg.note}`;
  renderRanked($('hint-table'), msg.moves, n, (m) => {
    const move = gameMoves().find((x) => x.text === m.move);
    if (move) playMove(move);
  }, state.game ? state.game.seat : null);
  $('hint-stop').disabled = !msg.partial;
}

// a budget field as typed: a whole number as a number, anything else as its text, for the
// server to refuse by name (Number('5k') is NaN, which JSON sends as null: the default)
function budgetField(text) { return /^\d{1,15}$/.test(text) ? Number(text) : text; }

function askHint() {
  if (!state.game || !state.game.myTurn) return;
  state.hintUpdates = 0;
  $('hint-status').dataset.updates = '0';
  $('hint-status').dataset.final = '0';
  $('hint-status').textContent = 'searching…';
  const it = $('hint-iterations').value.trim();
  const message = { type: 'hint' };
  if (it) message.iterations = budgetField(it);
  state.timing = { asked: performance.now(), updates: [] };
  const id = send(message);
  if (id === null) { $('hint-status').textContent = ''; return; }
  state.jobs.hint = id;
  $('hint-stop').disabled = false;
}

// ------------------------------------------------------------ analyse
function positionText() { return $('pos-text').value; }

function loadPosition(text) {
  const id = send({ type: 'load', position: text });
  if (id !== null) state.loading = { id, text };
  return id;
}

// the box's text, for Analyse and Solve: loaded first when the board shows another, so
// that the answer is always about the position on the board
function boardText() {
  const text = positionText();
  if (text !== state.loadedText) loadPosition(text);
  return text;
}

function onPosition(msg) {
  state.position = msg;
  if (state.loading && state.loading.id === msg.id) state.loadedText = state.loading.text;
  renderBoard($('an-board'), msg.board, null);
  $('an-status').textContent = msg.board.decision + (msg.solvable ? ' · nothing hidden: the solver can prove it' : '');
  $('an-run').disabled = !msg.board.actor || msg.board.actor === 'chance';
  $('an-solve').disabled = !msg.solvable;
  $('an-solve').title = msg.whyNotSolvable || '';
  $('an-table').replaceChildren();
  $('solve-table').replaceChildren();
  $('an-result-status').textContent = '';
}

function onAnalysis(msg) {
  if (!current('analyse', msg)) return;
  if (msg.partial) state.analysisUpdates += 1;
  const status = $('an-result-status');
  status.dataset.updates = String(state.analysisUpdates);
  status.dataset.final = msg.partial ? '0' : '1';
  status.textContent = (msg.partial ? `searching… ${msg.iterations.toLocaleString()} iterations` :
    `${msg.iterations.toLocaleString()} iterations in ${took(msg.seconds)} (${msg.stopReason})`) + ` · point of view ${msg.pointOfView}`;
  const seats = state.position ? state.position.board.seats.length : 2;
  renderRanked($('an-table'), msg.moveInfos, seats, null, msg.pointOfView);
  const caption = $('an-table').querySelector('caption');  // (with more seats renderRanked's holds the legend)
  if (caption) caption.prepend('the search, each move estimated; ');
  else $('an-table').prepend(el('caption', { class: 'muted', text: 'the search: each move estimated' }));
  if (!msg.partial) $('an-stop').disabled = true;
}

function onSolve(msg) {
  if (!current('solve', msg)) return;
  const head = el('tr', {}, ...['#', 'move', 'value', 'plies', 'line'].map((t) => el('th', { text: t })));
  const rows = msg.moves.map((m) => el('tr', {}, el('td', { text: String(m.rank) }), el('td', { text: m.move }),
    el('td', { class: 'proven', text: m.value || 'not proven' }), el('td', { text: m.plies === null ? '-' : String(m.plies) }),
    el('td', { class: 'pv', text: m.pv.slice(1).join(' · ') })));
  $('solve-table').replaceChildren(el('caption', { class: 'muted', text: 'the exact solver: each move\'s proven value' }), head, ...rows);
  $('an-result-status').textContent = `solved: ${msg.value ? 'the position is a ' + msg.value + ' for ' + msg.pointOfView : msg.solvedMoves + ' of ' + msg.moves.length + ' moves proven'} (${msg.nodes.toLocaleString()} nodes, ${took(msg.seconds)}, ${msg.stopReason})`;
  $('an-result-status').dataset.final = '1';
  $('an-stop').disabled = true;
}

// ------------------------------------------------------------ review
function chart(review) {
  const w = 760, h = 240, pad = 36;
  const plies = Math.max(review.plies, 1);
  const x = (ply) => pad + (w - 2 * pad) * ply / plies;
  const y = (v) => h - pad - (h - 2 * pad) * v;
  const svg = el('svg:svg', { viewBox: `0 0 ${w} ${h}`, class: 'chart', role: 'img', 'aria-label': 'each decider\'s best score over the game' });
  svg.append(el('svg:rect', { x: pad, y: pad, width: w - 2 * pad, height: h - 2 * pad, fill: '#fbfbfb', stroke: '#ccc' }));
  svg.append(el('svg:line', { x1: pad, x2: w - pad, y1: y(0.5), y2: y(0.5), stroke: '#bbb', 'stroke-dasharray': '4 4' }));
  svg.append(el('svg:text', { x: 4, y: pad + 4, 'font-size': 11, text: '1.0' }), el('svg:text', { x: 4, y: h - pad + 4, 'font-size': 11, text: '0.0' }));
  const step = Math.max(1, Math.floor(plies / 20));
  for (let t = 0; t <= review.plies; t += step) {
    svg.append(el('svg:line', { x1: x(t), x2: x(t), y1: h - pad, y2: h - pad + 5, stroke: '#888' }));
    svg.append(el('svg:text', { x: x(t) - 6, y: h - pad + 17, 'font-size': 10, text: String(t) }));
  }
  svg.append(el('svg:text', { x: w / 2 - 40, y: h - 2, 'font-size': 11, text: 'ply (move number)' }));
  const bySeat = {};
  review.decisions.forEach((d, i) => { (bySeat[d.player] = bySeat[d.player] || []).push([d, i]); });
  for (const [seat, list] of Object.entries(bySeat)) {
    const path = list.map(([d], k) => `${k ? 'L' : 'M'}${x(d.ply).toFixed(1)},${y(d.bestScore).toFixed(1)}`).join(' ');
    svg.append(el('svg:path', { d: path, fill: 'none', stroke: SEAT_COLOURS[seatNumber(seat) % 8], 'stroke-width': 1.5 }));
  }
  review.decisions.forEach((d, i) => {
    svg.append(el('svg:circle', {
      class: 'mark', 'data-i': i, cx: x(d.ply), cy: y(d.bestScore), r: d.label ? 6 : 4,
      fill: LABEL_COLOURS[d.label] || SEAT_COLOURS[seatNumber(d.player) % 8], stroke: 'none', 'stroke-width': 2,
      onclick: () => pickDecision(i),
    }, el('svg:title', { text: `ply ${d.ply} ${d.player}: ${d.played} (best ${d.best})${d.label ? ' - ' + d.label : ''}` })));
  });
  const legend = el('div', { class: 'muted' }, 'each point is a decision at its decider\'s best score (from their view): ',
    seatLegend(Object.keys(bySeat).sort()), '; labelled decisions are larger (blunder red, mistake orange, inaccuracy yellow). Click a point, a row, or use ← →.');
  return [svg, legend];
}

function onReview(msg) {
  if (!current('review', msg)) return;
  const review = msg.review;
  state.review = review;
  $('rv-status').textContent = `reviewed ${review.decisions.length} decisions in ${took(review.seconds)} (${review.iterationsPerDecision} iterations a decision)`;
  $('rv-status').dataset.done = '1';
  $('rv-stop').disabled = true;
  const players = Object.entries(review.players).map(([s, p]) => `${s} ${p}`).join(' vs ') || 'players not recorded';
  const winners = review.winners && review.winners.length ? review.winners : (review.winner ? [review.winner] : []);
  $('rv-head').textContent = `${players}; ${review.rules}, ${review.plies} moves, result ${review.result.status}` +
    (winners.length ? `, ${winners.join(' and ')} ${winners.length > 1 ? 'win' : 'wins'}` : '');
  $('rv-chart').replaceChildren(...chart(review));
  $('rv-summary').replaceChildren(...Object.entries(review.summary).map(([seat, s]) => el('li', {
    'data-seat': seat,
    text: `${seat}: accuracy ${s.accuracy === null ? '-' : s.accuracy + '%'}, ${counted(s.blunder, 'blunder')}, ` +
      `${counted(s.mistake, 'mistake')}, ${counted(s.inaccuracy, 'inaccuracy', 'inaccuracies')} ` +
      `(${counted(s.decisions, 'decision')} reviewed, ${s.forcedSkipped} forced skipped); ` +
      (s.luck === null ? 'luck not measured' : `luck ${fmt(s.luck)} over ${counted(s.luckEvents, 'event')}`) +
      (s.result === null ? '' : `, result ${fmt(s.result, 2)}`) +
      (s.luckAdjustedResult === null ? '' : `, luck-adjusted ${fmt(s.luckAdjustedResult + 0, 2)}`),
  })));
  // the luck of a forced move's cards and of chance (a random 4), which no decision row carries
  const events = [...review.forcedLuck.map((x) => ['forced', x]), ...review.chanceLuck.map((x) => ['chance', x])]
    .sort((a, b) => a[1].ply - b[1].ply);
  $('rv-luck').replaceChildren(...events.map(([kind, x]) => el('li', {
    text: `ply ${x.ply} ${x.player}, ${kind === 'forced' ? 'forced ' + x.move : 'chance: ' + x.move}: luck ` +
      `${x.luck >= 0 ? '+' : ''}${fmt(x.luck)} (${x.cards.join(' ')})`,
  })));
  $('rv-luck-head').hidden = !events.length;
  const head = el('tr', {}, ...['ply', 'player', 'played', 'best', 'played score', 'best score', 'sure loss', 'label', 'luck'].map((t) => el('th', { text: t })));
  $('rv-rows').replaceChildren(head, ...review.decisions.map((d, i) => el('tr', { class: 'row decision', 'data-i': i, onclick: () => pickDecision(i) },
    el('td', { text: String(d.ply) }), el('td', { text: d.player }), el('td', { text: d.played }),
    el('td', { text: d.played === d.best ? '=' : d.best }), el('td', { text: fmt(d.playedScore) }), el('td', { text: fmt(d.bestScore) }),
    el('td', { text: fmt(d.sureLoss) }), el('td', { class: d.label ? 'label-' + d.label : '', text: d.label || '' }),
    el('td', { text: d.luck ? `${d.luck.luck >= 0 ? '+' : ''}${fmt(d.luck.luck)} ${d.luck.cards.join(' ')}` : '' }))));
  if (review.decisions.length) pickDecision(0);
}

function pickDecision(i) {
  const review = state.review;
  if (!review || !review.decisions.length) return;
  i = Math.max(0, Math.min(review.decisions.length - 1, i));
  state.reviewIndex = i;
  const d = review.decisions[i];
  document.querySelectorAll('#rv-rows tr.decision').forEach((r) => r.classList.toggle('chosen', r.dataset.i === String(i)));
  document.querySelectorAll('#rv-chart circle.mark').forEach((c) => c.setAttribute('stroke', c.dataset.i === String(i) ? '#000' : 'none'));
  const detail = $('rv-detail');
  detail.dataset.ply = String(d.ply);
  detail.replaceChildren(
    el('h3', { text: `ply ${d.ply}: ${d.player} to decide (${d.phase}), seen from ${d.view}'s view` }),
    el('p', {}, 'played ', el('b', { text: d.played }), ` ${fmt(d.playedScore)} (${fmt(d.playedInterval[0], 2)}-${fmt(d.playedInterval[1], 2)})` +
      `${d.playedResearched ? ' (searched again alone)' : ''}, best `, el('b', { text: d.best }),
      ` ${fmt(d.bestScore)} (${fmt(d.bestInterval[0], 2)}-${fmt(d.bestInterval[1], 2)}); loss ${fmt(d.loss)}, sure loss ${fmt(d.sureLoss)} `,
      d.label ? el('span', { class: 'label-' + d.label, text: d.label }) : null,
      d.luck ? ` · luck ${fmt(d.luck.luck)} (${d.luck.cards.join(' ')})` : ''));
  if (d.board) renderBoard($('rv-board'), d.board, review.players); else $('rv-board').replaceChildren();
  const head = el('tr', {}, ...['candidate (first search)', 'visits', 'score', 'interval', 'gap', 'proven'].map((t) => el('th', { text: t })));
  $('rv-candidates').replaceChildren(head, ...d.candidates.map((c) => el('tr', { class: c.move === d.played ? 'chosen' : '' },
    el('td', { text: c.move + (c.move === d.played ? ' (played)' : '') }), el('td', { text: String(c.visits) }), el('td', { text: fmt(c.score) }),
    el('td', { text: `${fmt(c.interval[0], 2)}-${fmt(c.interval[1], 2)}` }), el('td', { text: c.move === d.best ? '-' : fmt(c.gap) }),
    el('td', { text: c.proven || '' }))));
}

// ------------------------------------------------------------ files
function readFile(input, then) {
  const file = input.files && input.files[0];
  if (!file) return;
  const most = state.meta ? state.meta.limits.maxRequestBytes - 1024 : 1 << 20;
  if (file.size > most) { showError(`file: ${file.name} is ${file.size.toLocaleString()} bytes, above the server's limit of ${most.toLocaleString()}`); return; }
  const reader = new FileReader();
  reader.onload = () => then(String(reader.result));
  reader.readAsText(file);
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ------------------------------------------------------------ the socket
function onMessage(event) {
  const msg = JSON.parse(event.data);
  switch (msg.type) {
    case 'game': renderGame(msg); break;
    case 'hint': onHint(msg); break;
    case 'position': onPosition(msg); break;
    case 'analysis': onAnalysis(msg); break;
    case 'solve': onSolve(msg); break;
    case 'solveProgress': if (current('solve', msg)) $('an-result-status').textContent = `solving… ${msg.stage} ${msg.done}/${msg.total} moves, ${msg.nodes.toLocaleString()} nodes`; break;
    case 'review': onReview(msg); break;
    case 'reviewProgress': if (current('review', msg)) $('rv-status').textContent = `reviewing… ${msg.done}/${msg.total} decisions`; break;
    case 'log': download(msg.filename, msg.text); break;  // the server's text: JSON.parse would round dealSeed
    case 'stopped': onStopped(msg); break;
    case 'error': onError(msg); break;
    default: break;
  }
}

function connect() {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => { $('conn').textContent = 'connected'; document.body.dataset.connected = '1'; };
  ws.onclose = () => { $('conn').textContent = 'disconnected (reload the page)'; document.body.dataset.connected = '0'; };
  ws.onmessage = onMessage;
}

// ------------------------------------------------------------ tabs and keys
function showTab(name) {
  document.querySelectorAll('.page').forEach((p) => { p.hidden = p.id !== 'page-' + name; });
  document.querySelectorAll('nav .tab').forEach((b) => b.classList.toggle('active', b.dataset.tab === name));
  document.body.dataset.tab = name;
}

function moveCursor(k) {
  const moves = gameMoves();
  if (!moves.length) return;
  state.cursor = Math.max(0, Math.min(moves.length - 1, k));
  paintSelection();
  const li = document.querySelectorAll('#play-moves li')[state.cursor];
  if (li && li.scrollIntoView) li.scrollIntoView({ block: 'nearest' });
}

function onKey(e) {
  const t = e.target;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) {
    if (e.key === 'Escape') t.blur();  // (then the page's keys work again)
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const tab = document.body.dataset.tab;
  if (tab === 'review') {
    if (e.key === 'ArrowRight' || e.key === 'j') { pickDecision(state.reviewIndex + 1); e.preventDefault(); }
    if (e.key === 'ArrowLeft' || e.key === 'k') { pickDecision(state.reviewIndex - 1); e.preventDefault(); }
    return;
  }
  if (tab !== 'play') return;
  const moves = gameMoves();
  if (!/^[0-9]$/.test(e.key)) state.digits = '';  // digits in a row make one number, anything else ends it
  if (/^[0-9]$/.test(e.key)) {
    clearTimeout(state.digitTimer);
    state.digits += e.key;
    if (Number(state.digits) > moves.length) state.digits = e.key;
    state.digitTimer = setTimeout(() => { state.digits = ''; }, 900);
    if (Number(state.digits) >= 1) moveCursor(Number(state.digits) - 1);
    e.preventDefault();
  } else if (e.key === 'ArrowDown') { moveCursor(state.cursor + 1); e.preventDefault(); }
  else if (e.key === 'ArrowUp') { moveCursor(state.cursor - 1); e.preventDefault(); }
  else if (e.key === 'Enter') {
    if (moves[state.cursor] && !$('play-moves').dataset.waiting) playMove(moves[state.cursor]);
    e.preventDefault();
  } else if (e.key === 'h') askHint();
  else if (e.key === 'n') {
    // a game under way ends only on a second n: one stray key must not lose it
    if (state.game && !state.game.over && state.game.ply > 0 && !state.confirmNew) {
      state.confirmNew = true;
      $('play-status').textContent = 'press n again for a new game (this one ends: Download log keeps it)';
      setTimeout(() => { state.confirmNew = false; }, 4000);
    } else {
      state.confirmNew = false;
      $('new-game').requestSubmit();
    }
  }
  else if (e.key === 'u') { if (state.game && state.game.canUndo) send({ type: 'undo' }); }
  else if (e.key === 'Escape') { state.selected = null; paintSelection(); }
}

// ------------------------------------------------------------ start
function init() {
  document.querySelectorAll('nav .tab').forEach((b) => b.addEventListener('click', () => showTab(b.dataset.tab)));
  showTab('play');
  $('new-game').addEventListener('submit', (e) => {
    e.preventDefault();
    const seed = $('seed').value.trim();
    const message = { type: 'new', rules: $('rules').value, seat: $('seat').value, opponents: $('opponents').value };
    if (seed) message.seed = seed;  // as typed: the server reads the digits (a Number would round above 2^53)
    send(message);
    if (document.activeElement) document.activeElement.blur();
  });
  $('resume-file').addEventListener('change', () => readFile($('resume-file'), (text) => {
    const message = { type: 'resume', game: text };
    const seed = $('seed').value.trim();
    if (seed) message.seed = seed;
    send(message);
    $('resume-file').value = '';  // (the same file may be chosen again)
  }));
  $('play-board').addEventListener('click', (e) => {
    const svg = e.target.closest('svg.card');
    if (svg) onCardClick(svg.dataset.card);
  });
  $('undo').addEventListener('click', () => send({ type: 'undo' }));
  $('download').addEventListener('click', () => send({ type: 'log' }));
  $('hint').addEventListener('click', askHint);
  $('hint-stop').addEventListener('click', () => send({ type: 'stop' }));
  $('pos-file').addEventListener('change', () => readFile($('pos-file'), (text) => { $('pos-text').value = text; loadPosition(text); }));
  $('pos-load').addEventListener('click', () => loadPosition(positionText()));
  $('an-run').addEventListener('click', () => {
    state.analysisUpdates = 0;
    const message = { type: 'analyse', position: boardText() };
    const it = $('an-iterations').value.trim();
    if (it) message.iterations = budgetField(it);
    const id = send(message);
    if (id === null) return;
    state.jobs.analyse = id;
    $('an-result-status').textContent = 'searching…';
    $('an-result-status').dataset.final = '0';
    $('an-stop').disabled = false;
  });
  $('an-solve').addEventListener('click', () => {
    const id = send({ type: 'solve', position: boardText() });
    if (id === null) return;
    state.jobs.analyse = id;
    $('an-result-status').dataset.final = '0';
    $('an-stop').disabled = false;
  });
  $('an-stop').addEventListener('click', () => send({ type: 'stop' }));
  const startReview = (text) => {
    const message = { type: 'review', game: text };
    const it = $('rv-iterations').value.trim();
    if (it) message.iterations = budgetField(it);
    const id = send(message);
    if (id === null) return;
    state.jobs.review = id;
    $('rv-status').textContent = 'reviewing…';
    $('rv-status').dataset.done = '0';
    $('rv-stop').disabled = false;
    if (document.activeElement) document.activeElement.blur();  // (the review's keys work at once)
  };
  $('rv-file').addEventListener('change', () => readFile($('rv-file'), (text) => { $('rv-text').value = text; startReview(text); }));
  $('rv-run').addEventListener('click', () => startReview($('rv-text').value));
  $('rv-stop').addEventListener('click', () => send({ type: 'stop' }));
  document.addEventListener('keydown', onKey);
  window.addEventListener('beforeunload', (e) => {  // a game under way is lost with the page: ask first
    if (state.game && !state.game.over && state.game.ply > 0) { e.preventDefault(); e.returnValue = ''; }
  });
  fetch('/api/meta').then((r) => r.json()).then((meta) => {
    state.meta = meta;
    $('rules').replaceChildren(...meta.rules.map((r) => el('option', { value: r, text: r })));
    $('agents').replaceChildren(...meta.agents.map((a) => el('option', { value: a })));
    $('hint-iterations').value = meta.defaults.hintIterations;
    $('an-iterations').value = meta.defaults.hintIterations;
    $('rv-iterations').value = meta.defaults.reviewIterations;
    document.body.dataset.ready = '1';
  });
  connect();
}

init();
