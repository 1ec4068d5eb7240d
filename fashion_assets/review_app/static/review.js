// Keyboard shortcuts of the review page (listed on the page under "Keyboard shortcuts").
// Queue: j / k choose the next / previous draft, Enter or o opens it.
// Draft: a approves, r goes to the rejection's reason (Enter rejects), n or s skips to the
// next draft, u goes back to the queue. ? shows the list. Keys typed into a field are the
// field's; Esc leaves it.
"use strict";

(function () {
  const rows = Array.from(document.querySelectorAll("table.queue tr.draft"));
  let chosen = -1;

  function choose(index) {
    if (!rows.length) return;
    chosen = Math.max(0, Math.min(rows.length - 1, index));
    rows.forEach((row, n) => row.classList.toggle("chosen", n === chosen));
    const link = rows[chosen].querySelector("a.open");
    if (link) link.focus();
  }

  function click(id) {
    const element = document.getElementById(id);
    if (element) element.click();
    return Boolean(element);
  }

  function typing(target) {
    return target && (target.isContentEditable ||
      ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    let handled = true;
    switch (event.key) {
      case "j": choose(chosen + 1); break;
      case "k": choose(chosen - 1); break;
      case "o":  // Enter needs no handling: the chosen draft's link has the focus
        if (chosen >= 0) window.location.href = rows[chosen].querySelector("a.open").href;
        else handled = false;
        break;
      case "a": handled = click("approve"); break;
      case "r": {
        const reason = document.getElementById("reject-reason");
        if (reason) reason.focus(); else handled = false;
        break;
      }
      case "n":
      case "s": handled = click("skip"); break;
      case "u": handled = click("back-to-queue"); break;
      case "?": {
        const list = document.getElementById("shortcuts");
        if (list) list.open = !list.open; else handled = false;
        break;
      }
      default: handled = false;
    }
    if (handled) event.preventDefault();
  });
})();
