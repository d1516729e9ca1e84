-- Folds limit i's quota once the verdict is applied (remaining permits, below 0 in debt, and reset,
-- how long until it is whole again) into the reply (reply.lua), as the twins' Verdict.decision: the
-- reported limit is the first with the fewest remaining permits, reset_after the longest of the
-- limits' resets.
if reported == 0 or remaining < lowest then
  reported, lowest, reported_reset = i, remaining, reset
end
if reset > reset_after then
  reset_after = reset
end
