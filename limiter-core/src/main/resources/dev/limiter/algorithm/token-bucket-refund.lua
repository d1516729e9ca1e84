-- token-bucket refund: puts permits back into every limit's bucket, refilled to now first as a
-- decision refills it, up to the burst (docs/algorithms.md). Twin: dev.limiter.TokenBucket#refund.
-- Follows decide.lua and lib.lua, which parse the arguments as for a decision.
--
-- KEYS[1]  string of doubles t, x<i>, f<i> as in token-bucket.lua
-- ARGV[2]  tokens to give back, at least 1
-- ARGV[4]  unused
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- An absent key (a full bucket), or one whose buckets are full again by now, is left as it is: nothing
-- is written. A key whose buckets are all full after the refund is deleted, the same as an absent one.

-- ceil(((k - x) * W - f) / L): microseconds until the bucket holds k tokens (0 if it does).
local function time_to(k, x, f, l)
  if x >= k then
    return 0
  end
  local q, r = muldivmod(k - x, l.window, l.limit)
  return q + ceildiv(r - f, l.limit)
end

local stored, layout = stored_doubles(1 + 2 * #limits)
local last = stored[1] or now
local elapsed = math.max(0, now - last)

local changed = false
local x, f = {}, {}
for i, l in ipairs(limits) do
  x[i] = stored[2 * i]
  f[i] = stored[2 * i + 1]
  if not x[i] or not f[i] or elapsed >= time_to(l.burst, x[i], f[i], l) then
    x[i], f[i] = l.burst, 0
  else
    -- Refill elapsed * L / W tokens, exactly, as a decision does.
    local q, r = muldivmod(l.limit, elapsed, l.window)
    local carry
    carry, f[i] = divmod(f[i] + r, l.window)
    x[i] = x[i] + q + carry
    changed = true
    -- x + f/W + permits, but never above B (compared first: permits may be any size).
    if permits >= l.burst - x[i] then
      x[i], f[i] = l.burst, 0
    else
      x[i] = x[i] + permits
    end
  end
end

local remaining, reset, values = {}, {}, {math.max(now, last)}
local whole = true
for i, l in ipairs(limits) do
  values[#values + 1] = x[i]
  values[#values + 1] = f[i]
  remaining[i] = x[i]
  reset[i] = time_to(l.burst, x[i], f[i], l)
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
