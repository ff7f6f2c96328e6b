/* negtheory documentation: fit wide display equations to the column.
 *
 * MathJax 3 does not break lines. A display equation wider than the article column (the BCL weights of
 * negtheory.bcl_weights, BNS's risk of negtheory.bns_risk) is typeset smaller, down to 70 % of its size, until
 * it fits; one that still does not fit scrolls horizontally (negtheory.css), with a visible scroll bar.
 */
(function () {
  "use strict";
  var MIN_SCALE = 0.7;

  function fit() {
    document.querySelectorAll("div.math mjx-container").forEach(function (box) {
      if (box.dataset.ntFontSize === undefined) {
        box.dataset.ntFontSize = box.style.fontSize || "";
      }
      box.style.fontSize = box.dataset.ntFontSize; // start from MathJax's own size (e.g. after a resize)
      if (box.scrollWidth <= box.clientWidth + 1) {
        return;
      }
      var size = parseFloat(getComputedStyle(box).fontSize);
      var scale = Math.max(MIN_SCALE, (0.98 * box.clientWidth) / box.scrollWidth);
      box.style.fontSize = size * scale + "px";
    });
  }

  function whenTypeset() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fit);
    }
  }

  var timer = null;
  window.addEventListener("load", whenTypeset);
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(fit, 200);
  });
})();
