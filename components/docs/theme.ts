/**
 * The colour scheme lives in `data-theme` on <html>. This script runs before first paint
 * (inlined in the root layout) so a dark-mode reader never sees a white flash.
 */
export const themeStorageKey = "pod-theme";

export const themeInitScript = `(function(){try{var t=localStorage.getItem("${themeStorageKey}");if(t!=="light"&&t!=="dark"){t=window.matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light"}document.documentElement.dataset.theme=t}catch(e){document.documentElement.dataset.theme="light"}})();`;
