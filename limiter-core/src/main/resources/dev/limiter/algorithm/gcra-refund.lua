-- gcra refund: moves every limit's theoretical arrival time tau back by permits x T (T = W/L), never
-- before now (docs/algorithms.md). Twin: dev.limiter.Gcra#refund. Follows decide.lua and lib.lua, which parse the
-- arguments as for a decision.
--
-- KEYS[1]  string of doubles t, a<i>, f<i>, l<i> as in gcra.lua
-- ARGV[2]  permits to give back, at least 1
-- ARGV[4]  unused
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- "Now" is at = max(t, now), as for a decision: a clock that went back stands still. An absent key,
-- or one whose tau is not after at, is idle and left as it is: nothing is written. A key idle in
-- every limit after the refund is deleted, the same as an absent one.

local stored, layout = stored_doubles(3 * #limits + 1)
local at = math.max(now, stored[1] or now)

-- The fraction f of a microsecond over the limit 'over', as one over L: rounded up, as gcra.lua does.
local function over_limit(a, f, over, l)
  if over == l.limit then
    return a, f
  end
  local q, r = muldivmod(f, l.limit, over)
  if r > 0 then
    q = q + 1
  end
  if q == l.limit then
    return a + 1, 0
  end
  return a, q
end

local changed = false
local a, f = {}, {}
for i, l in ipairs(limits) do
  a[i] = stored[3 * i - 1]
  f[i] = stored[3 * i]
  if not a[i] or not f[i] or a[i] < at then
    a[i], f[i] = at, 0
  else
    a[i], f[i] = over_limit(a[i], f[i], stored[3 * i + 1] or l.limit, l)
  end
  if a[i] > at or f[i] > 0 then
    changed = true
    -- Cells between at and tau, rounded up: ceil((tau - at) * L / W). Giving back as many or more
    -- brings tau to at; fewer keep every product below in range whatever permits is.
    local q, r = muldivmod(l.limit, a[i] - at, l.window)
    local cells = q + ceildiv(r + f[i], l.window)
    if permits >= cells then
      a[i], f[i] = at, 0
    else
      -- tau - permits * T, as whole microseconds and a fraction over L.
      local cq, cr = muldivmod(permits, l.window, l.limit)
      local borrow
      borrow, f[i] = divmod(f[i] - cr, l.limit)
      a[i] = a[i] - cq + borrow
      if a[i] < at then
        a[i], f[i] = at, 0
      end
    end
  end
end

local remaining, reset, values = {}, {}, {at}
local whole = true
for i, l in ipairs(limits) do
  values[#values + 1] = a[i]
  values[#values + 1] = f[i]
  values[#values + 1] = l.limit
  -- floor(B - (tau - at) / T) = B - ceil(((a - at) * L + f) / W), as gcra.lua reports it.
  local q, r = muldivmod(l.limit, a[i] - at, l.window)
  remaining[i] = l.burst - q - ceildiv(r + f[i], l.window)
  reset[i] = a[i] - at + ceildiv(f[i], l.limit)
  if reset[i] > 0 then
    whole = false
  end
end
if changed then
  if whole then
    redis.call('DEL', KEYS[1])
  else
    store_doubles(layout, values, reset)
  end
end
return reply(false, 0, 0, 0, remaining, reset)
