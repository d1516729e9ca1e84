-- tau as whole microseconds a and a fraction f over L, from the stored a, f over the limit 'over':
-- max(tau, at), the fraction rounded up to one over L, never earlier.
local function arrival(a, f, over, at, limit)
  if not a or not f or a < at then
    -- tau <= at: max(tau, at) = at.
    return at, 0
  end
  if over == limit then
    return a, f
  end
  local q, r = muldivmod(f, limit, over)
  if r > 0 then
    q = q + 1
  end
  if q == limit then
    return a + 1, 0
  end
  return a, q
end
