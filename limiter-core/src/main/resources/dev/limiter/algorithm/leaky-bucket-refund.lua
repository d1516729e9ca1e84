-- leaky-bucket refund: lowers the level of every limit's bucket by the permits given back, drained
-- to now first as a decision drains it, down to empty (docs/algorithms.md). Twin:
-- dev.limiter.LeakyBucket#refund. Follows decide.lua and lib.lua, which parse the arguments as for a decision.
--
-- KEYS[1]  string of doubles t, v<i>, f<i> as in leaky-bucket.lua
-- ARGV[2]  permits to give back, at least 1
-- ARGV[4]  unused
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- An absent key (an empty bucket), or one whose buckets have drained by now, is left as it is:
-- nothing is written. A key whose buckets are all empty after the refund is deleted, the same as an
-- absent one.

-- ceil(((v - k) * W + f) / L): microseconds until the level is down to k (0 if it is).
local function time_to(k, v, f, l)
  if v < k then
    return 0
  end
  local q, r = muldivmod(v - k, l.window, l.limit)
  return q + ceildiv(r + f, l.limit)
end

local stored, layout = stored_doubles(1 + 2 * #limits)
local last = stored[1] or now
local elapsed = math.max(0, now - last)

local changed = false
local v, f = {}, {}
for i, l in ipairs(limits) do
  v[i] = stored[2 * i]
  f[i] = stored[2 * i + 1]
  if not v[i] or not f[i] or elapsed >= time_to(0, v[i], f[i], l) then
    v[i], f[i] = 0, 0
  else
    -- Drain elapsed * L / W permits, exactly, as a decision does; the level stays above 0.
    local q, r = muldivmod(l.limit, elapsed, l.window)
    local borrow
    borrow, f[i] = divmod(f[i] - r, l.window)
    v[i] = v[i] - q + borrow
    changed = true
    -- v + f/W - permits, but never below 0.
    if v[i] < permits then
      v[i], f[i] = 0, 0
    else
      v[i] = v[i] - permits
    end
  end
end

local remaining, reset, values = {}, {}, {math.max(now, last)}
local whole = true
for i, l in ipairs(limits) do
  values[#values + 1] = v[i]
  values[#values + 1] = f[i]
  remaining[i] = l.burst - v[i] - ((f[i] > 0) and 1 or 0)
  reset[i] = time_to(0, v[i], f[i], l)
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
