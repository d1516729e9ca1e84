-- leaky-bucket refund: lowers the level of every limit's bucket by the permits given back, drained
-- to now first as a decision drains it, down to empty (docs/algorithms.md). Twin:
-- dev.limiter.internal.algorithm.LeakyBucket#refund. Assembled by Scripts from the --@include lines.
--
-- KEYS[1]  string of doubles t, v<i>, f<i> as in leaky-bucket.lua
-- ARGV[2]  permits to give back, at least 1
-- ARGV[3]  unused
-- ARGV[4]  unused
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- An absent key (an empty bucket), or one whose buckets have drained by now, is left as it is:
-- nothing is written. A key whose buckets are all empty after the refund is deleted, the same as an
-- absent one.

--@include decision-prelude.lua
--@include leaky-bucket-time-to.lua

local doubles = 1 + 2 * count
--@include doubles-read.lua
local last = stored[1] or now
local elapsed = (now > last) and (now - last) or 0

local changed = false
local values = {(now > last) and now or last}
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local v, f = stored[2 * i], stored[2 * i + 1]
  --@include leaky-bucket-drain.lua
  if reset > 0 then
    changed = true
    -- v + f/W - permits, but never below 0.
    if v < permits then
      v, f = 0, 0
    else
      v = v - permits
    end
    reset = time_to(0, v, f, limit, window)
  end
  values[2 * i], values[2 * i + 1] = v, f
  --@include leaky-bucket-quota.lua
end
--@include refund-doubles-and-reply.lua
