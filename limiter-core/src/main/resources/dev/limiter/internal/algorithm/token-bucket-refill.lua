-- Refills limit i's bucket from the stored x, f (nil: a full bucket) by the elapsed time, exactly:
-- x + f/W tokens after it, reset the microseconds until it is full (0: it is, x = B, f = 0).
-- Comparing with the time until it is full first keeps elapsed, and so the product, bounded.
local reset = (x and f) and time_to(burst, x, f, limit, window) or 0
if reset > elapsed then
  -- Refill elapsed * L / W tokens; f + r stays below 2W.
  local q, r = muldivmod(limit, elapsed, window)
  x, f = x + q, f + r
  if f >= window then
    x, f = x + 1, f - window
  end
  reset = reset - elapsed
else
  x, f, reset = burst, 0, 0
end
