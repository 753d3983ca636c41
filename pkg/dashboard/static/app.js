// wavekit dashboard: live updates by server-sent events, and copy buttons.
// The server sends an event "change" when something the viewer may see
// changed; the page then fetches itself again and swaps its <main>.
(function () {
  "use strict";

  var refreshing = false;
  var again = false;
  var deferred = false;

  // typing reports whether the viewer is editing a filter of the page,
  // which a refresh would undo.
  function typing() {
    var active = document.activeElement;
    var main = document.getElementById("live");
    return active && main && main.contains(active) && (active.tagName === "INPUT" || active.tagName === "SELECT");
  }

  function refresh() {
    if (refreshing) { again = true; return; }
    if (typing()) {
      if (!deferred) {
        deferred = true;
        window.setTimeout(function () { deferred = false; refresh(); }, 1000);
      }
      return;
    }
    refreshing = true;
    fetch(window.location.href, { credentials: "same-origin", redirect: "manual", headers: { "Accept": "text/html" } })
      .then(function (response) {
        // Logged out, or a session that expired: the page sends the viewer
        // to log in or sign in again.
        if (response.status === 401 || response.type === "opaqueredirect") { window.location.reload(); return null; }
        return response.ok ? response.text() : null;
      })
      .then(function (html) {
        if (!html) { return; }
        var next = new DOMParser().parseFromString(html, "text/html").getElementById("live");
        var current = document.getElementById("live");
        if (next && current) { current.replaceWith(next); }
      })
      .catch(function () {})
      .then(function () {
        refreshing = false;
        if (again) { again = false; refresh(); }
      });
  }

  function connect() {
    var main = document.getElementById("live");
    var url = main && main.getAttribute("data-live");
    if (!url || !window.EventSource) { return; }
    var source = new EventSource(url);
    var badge = document.getElementById("live-state");
    source.addEventListener("open", function () { if (badge) { badge.hidden = false; } });
    source.addEventListener("error", function () { if (badge) { badge.hidden = true; } });
    source.addEventListener("change", refresh);
  }

  function copy(event) {
    var button = event.target;
    if (!button.classList || !button.classList.contains("copy")) { return; }
    var code = button.parentNode.querySelector("code");
    if (!code) { return; }
    var done = function () { button.textContent = "copied"; };
    if (navigator.clipboard) {
      navigator.clipboard.writeText(code.textContent).then(done, function () { select(code); });
    } else {
      select(code);
    }
  }

  function select(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.addEventListener("click", copy);
  document.addEventListener("DOMContentLoaded", connect);
})();
