-- Folds limit i's answer into the verdict (verdict.lua), as the twins' Verdict.decide does: retry is
-- how long until limit i admits the request (0: now), or -1 when the cost is over its capacity, so
-- that it never does. over becomes the first limit the cost is over; worst the longest wait, and
-- violated the first limit that has it. Straight-line code, included once per path of each script.
if retry < 0 then
  if over == 0 then
    over = i
  end
elseif retry > worst then
  worst, violated = retry, i
end
