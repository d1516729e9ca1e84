-- Drains limit i's bucket from the stored v, f (nil: an empty bucket) by the elapsed time, exactly:
-- level v + f/W after it, reset the microseconds until it is empty (0: it is, v = f = 0).
-- Comparing with the time until it is empty first keeps elapsed, and so the product, bounded.
local reset = (v and f) and time_to(0, v, f, limit, window) or 0
if reset > elapsed then
  -- Drain elapsed * L / W permits; the level stays above 0, and f - r above -W.
  local q, r = muldivmod(limit, elapsed, window)
  v, f = v - q, f - r
  if f < 0 then
    v, f = v - 1, f + window
  end
  reset = reset - elapsed
else
  v, f, reset = 0, 0, 0
end
