(function () {
  'use strict';
  // /watch/{id}?token=T follows /v1/submissions/{id}/events with the
  // browser's EventSource, which reconnects with Last-Event-ID by itself.
  var body = document.body;
  var $ = function (id) { return document.getElementById(id); };
  var segs = location.pathname.split('/');
  var id = decodeURIComponent(segs[segs.length - 1] || '');
  var token = new URLSearchParams(location.search).get('token');
  $('sub').textContent = id;
  document.title = 'docket · ' + id;

  var url = '../v1/submissions/' + encodeURIComponent(id) + '/events';
  if (token) url += '?token=' + encodeURIComponent(token);

  var seen = [];
  var opens = 0;
  var finished = false;
  var attempt = 0;
  var total = 0;
  var rows = new Map();

  function state(s, text) {
    body.dataset.state = s;
    var el = $('status');
    el.textContent = text;
    el.className = 'status ' + s;
  }
  function num(x) { return typeof x === 'number' && isFinite(x); }
  function fmtTime(ms) { return num(ms) ? ms + ' ms' : ''; }
  function fmtMem(kb) {
    if (!num(kb)) return '';
    return kb >= 10240 ? (kb / 1024).toFixed(1) + ' MiB' : kb + ' KiB';
  }
  function fmtScore(x) { return num(x) ? String(Math.round(x * 100) / 100) : '?'; }
  function setVerdict(el, v) {
    el.textContent = v || '…';
    el.className = 'verdict v-' + (/^[A-Z]{2,3}$/.test(v || '') ? v : 'pending');
  }
  function progress() {
    $('progress').textContent = total ? rows.size + ' of ' + total + ' tests' : rows.size ? rows.size + ' tests' : '';
  }

  // One row per test, keyed by its name (arrival order when it has none).
  function testRow(t, key) {
    var tr = rows.get(key);
    if (!tr) {
      tr = document.createElement('tr');
      ['idx', 'name', 'verdict', 'time', 'mem', 'details'].forEach(function (c) {
        var td = document.createElement('td');
        td.className = c;
        tr.appendChild(td);
      });
      $('tests').tBodies[0].appendChild(tr);
      rows.set(key, tr);
      tr.dataset.key = key;
      tr.children[0].textContent = String(rows.size);
    }
    var c = tr.children;
    c[1].textContent = t.name || '';
    setVerdict(c[2], t.verdict);
    c[3].textContent = fmtTime(t.time_ms);
    c[4].textContent = fmtMem(t.memory_kb);
    // The bridge has already removed what this token may not see; a
    // test whose details it removed says so rather than looking empty.
    c[5].textContent = t.feedback_hidden ? 'hidden' : (t.feedback || '');
    c[5].title = t.feedback_hidden ? "this test's details are shown to the jury only" : '';
    c[5].classList.toggle('hidden', !!t.feedback_hidden);
    $('no-tests').hidden = true;
  }
  function clearRun() {
    rows.clear();
    $('tests').tBodies[0].replaceChildren();
    $('groups').replaceChildren();
    $('groups-section').hidden = true;
    $('compile').hidden = true;
    $('no-tests').hidden = false;
    total = 0;
    progress();
  }

  var handlers = {
    started: function (ev) {
      var a = ev.attempt || 1;
      if (a !== attempt) {
        if (attempt) clearRun(); // a redelivered job starts over
        attempt = a;
      }
      $('attempt').textContent = 'attempt ' + a + (ev.worker ? ' on ' + ev.worker : '');
    },
    compile: function (ev) {
      var c = ev.compile || {};
      $('compile').hidden = false;
      $('compile-status').textContent = c.ok ? 'compiled' : 'compilation failed';
      $('compile-log').textContent = c.log || '';
      $('compile-log').hidden = !c.log;
    },
    test: function (ev) {
      var t = ev.test || {};
      if (num(ev.total)) total = ev.total;
      testRow(t, t.name || '#' + (rows.size + 1));
      progress();
    },
    group: function (ev) {
      var g = ev.group || {};
      var li = document.createElement('li');
      li.textContent = (g.name || 'group') + ': ' + fmtScore(g.score) + ' / ' + fmtScore(g.max_score);
      $('groups').appendChild(li);
      $('groups-section').hidden = false;
    },
    final: function (ev) {
      var r = ev.result || {};
      finished = true;
      es.close(); // else EventSource would reconnect once the stream ends
      if (Array.isArray(r.tests)) {
        r.tests.forEach(function (t, i) { testRow(t, t.name || '#' + (i + 1)); });
        if (r.tests.length) total = r.tests.length;
      }
      progress();
      setVerdict($('verdict'), r.verdict);
      $('score').textContent = num(r.max_score) && r.max_score > 0 ? fmtScore(r.score) + ' / ' + fmtScore(r.max_score) : '';
      var parts = [];
      if (num(r.time_ms)) parts.push('time ' + fmtTime(r.time_ms));
      if (num(r.memory_kb)) parts.push('memory ' + fmtMem(r.memory_kb));
      if (r.worker) parts.push('judged by ' + r.worker);
      $('summary').textContent = parts.join(' · ');
      $('error').textContent = r.error || '';
      $('error').hidden = !r.error;
      $('final').hidden = false;
      state('done', 'finished');
    }
  };

  // EventSource reconnects by itself (with Last-Event-ID) when a stream
  // ends or breaks, but gives up for good on an HTTP error (a 503 while
  // NATS is away, say); then the page starts a new one, resuming with
  // ?last_event_id=, with a growing delay.
  var es = null;
  var lastId = '';
  var delay = 2000;
  function connect() {
    var u = url;
    if (lastId) u += (u.indexOf('?') < 0 ? '?' : '&') + 'last_event_id=' + encodeURIComponent(lastId);
    var src = new EventSource(u);
    es = src;
    src.onopen = function () {
      opens++;
      body.dataset.opens = String(opens);
      delay = 2000;
      if (!finished) state('live', 'live');
    };
    src.onerror = function () {
      if (finished || src !== es) return;
      if (src.readyState === EventSource.CLOSED) {
        state('reconnecting', 'connection lost; retrying in ' + Math.round(delay / 1000) + ' s');
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      } else {
        state('reconnecting', 'reconnecting…');
      }
    };
    Object.keys(handlers).forEach(function (type) {
      src.addEventListener(type, function (e) {
        if (src !== es) return;
        lastId = e.lastEventId;
        seen.push(e.lastEventId);
        body.dataset.seen = seen.join(',');
        body.dataset.lastEventId = e.lastEventId;
        var ev;
        try { ev = JSON.parse(e.data); } catch (err) { return; }
        handlers[type](ev);
      });
    });
  }
  connect();
})();
