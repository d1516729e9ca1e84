-- The verdict over all limits, once verdict-limit.lua has folded each in, as the twins'
-- Verdict.decide: asking for 0 permits is never admitted and never violates; else the first limit
-- the cost is over is violated, and never admits it (retry_after -1); else the longest wait decides:
-- none admits at once, one within max-wait admits after waiting it, a longer one rejects (violated:
-- the first limit with that wait). Sets allowed, wait and retry_after; violated is 0 unless rejected.
local allowed, wait, retry_after = false, 0, 0
if permits == 0 then
  violated = 0
elseif over > 0 then
  violated, retry_after = over, -1
elseif worst == 0 then
  allowed = true
elseif worst <= max_wait then
  allowed, wait, violated = true, worst, 0
else
  retry_after = worst
end
