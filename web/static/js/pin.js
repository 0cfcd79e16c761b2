"use strict";
document.querySelectorAll(".pinpad").forEach((pad) => {
  const input = document.getElementById(pad.dataset.target);
  pad.addEventListener("click", (e) => {
    const d = e.target.dataset && e.target.dataset.digit;
    if (!d) return;
    if (d === "del") input.value = input.value.slice(0, -1);
    else if (input.value.length < 12) input.value += d;
  });
});
