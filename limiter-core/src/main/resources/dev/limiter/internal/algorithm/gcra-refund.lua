-- gcra refund: moves every limit's theoretical arrival time tau back by permits x T (T = W/L), never
-- before now (docs/algorithms.md). Twin: dev.limiter.internal.algorithm.Gcra#refund. Assembled by
-- Scripts from the --@include lines.
--
-- KEYS[1]  string of doubles t, a<i>, f<i>, l<i> as in gcra.lua
-- ARGV[2]  permits to give back, at least 1
-- ARGV[3]  unused
-- ARGV[4]  unused
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- "Now" is at = max(t, now), as for a decision: a clock that went back stands still. An absent key,
-- or one whose tau is not after at, is idle and left as it is: nothing is written. A key idle in
-- every limit after the refund is deleted, the same as an absent one.

--@include decision-prelude.lua
--@include gcra-arrival.lua

local doubles = 3 * count + 1
--@include doubles-read.lua
local at = stored[1] or now
if now > at then
  at = now
end

local changed = false
local values = {at}
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local a, f = arrival(stored[3 * i - 1], stored[3 * i], stored[3 * i + 1] or limit, at, limit)
  if a > at or f > 0 then
    changed = true
    -- Cells between at and tau, rounded up: ceil((tau - at) * L / W). Giving back as many or more
    -- brings tau to at; fewer keep every product below in range whatever permits is.
    local q, r = muldivmod(limit, a - at, window)
    if permits >= q + ceildiv(r + f, window) then
      a, f = at, 0
    else
      -- tau - permits * T, as whole microseconds and a fraction over L.
      local cq, cr = muldivmod(permits, window, limit)
      local borrow
      borrow, f = divmod(f - cr, limit)
      a = a - cq + borrow
      if a < at then
        a, f = at, 0
      end
    end
  end
  values[3 * i - 1], values[3 * i], values[3 * i + 1] = a, f, limit
  --@include gcra-quota.lua
end
--@include refund-doubles-and-reply.lua
