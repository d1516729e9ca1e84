-- Limit i of a decision, its arrival time tau = a + f/L: na + nf/L = tau' = tau + c*T once the
-- permits are taken, and the wait for them, ceil(tau' - at - B*T) (0 or less: they fit the
-- tolerance), folded into the verdict (the cost is over the capacity when above the burst).
local na, nf, retry = a, f, -1
if permits <= burst then
  local q, r = muldivmod(permits, window, limit)
  na, nf = a + q, f + r
  if nf >= limit then
    na, nf = na + 1, nf - limit
  end
  local bq, br = muldivmod(burst, window, limit)
  retry = na - at - bq + ((nf > br) and 1 or 0)
  if retry < 0 then
    retry = 0
  end
end
--@include verdict-limit.lua
