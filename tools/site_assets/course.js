// the step-through viewer (agent_core.widgets.TraceViewer) on the course website: the turn on show is
// announced to screen readers (a polite live region), and on a Spanish page its words are Spanish
(() => {
  const spanish = document.documentElement.lang === "es";
  const WORDS = {
    "turn": "turno",
    "request JSON": "JSON de la petición",
    "response JSON": "JSON de la respuesta",
    "new in this request": "nuevo en esta petición",
  };
  function translate(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.nodeValue.trim();
      if (WORDS[text]) node.nodeValue = node.nodeValue.replace(text, WORDS[text]);
      else if (/^Turn \d+ of \d+/.test(text)) {
        node.nodeValue = node.nodeValue.replace(/Turn (\d+) of (\d+)/, "Turno $1 de $2");
      }
    }
  }
  function fit(viewer) {
    const buttons = [...viewer.querySelectorAll(".widget-toggle-button")];
    if (spanish) translate(viewer);
    if (!buttons.length || viewer.querySelector(".course-live")) return;
    const live = document.createElement("div");
    live.className = "course-live";
    live.setAttribute("role", "status");
    live.setAttribute("aria-live", "polite");
    viewer.prepend(live);
    const say = () => {
      const shown = buttons.findIndex((button) => button.classList.contains("mod-active")) + 1;
      live.textContent = spanish ? `Turno ${shown} de ${buttons.length}` : `Turn ${shown} of ${buttons.length}`;
    };
    // said when a button's class changes, in the same task as the change: whatever moved the turn
    // (a click, the keyboard, a script), the announcement is in place before anything else runs
    const watcher = new MutationObserver(say);
    for (const button of buttons) watcher.observe(button, { attributes: true, attributeFilter: ["class"] });
  }
  new MutationObserver(() => {
    for (const viewer of document.querySelectorAll(".agent-core-kernel-free")) fit(viewer);
  }).observe(document.body, { childList: true, subtree: true });
})();
