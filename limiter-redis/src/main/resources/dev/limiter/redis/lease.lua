-- lease: a bucket algorithm's decision for the caller's permits and, when it admits them without
-- waiting, a second decision of the same algorithm taking up to ARGV[1] more permits, which the
-- calling instance hands out itself (RedisRateLimiter, LocalLeases). The algorithm's decision script
-- is included below (Scripts, the assembler of the algorithms' scripts in limiter-core, expands the
-- --@include line, {algorithm} naming the bucket algorithm LeaseScript assembles this for) as the
-- body of the function algorithm(KEYS, ARGV), whose parameters shadow the globals and which returns
-- its reply: both takes run the algorithm's own arithmetic on the same state, at the same instant, in
-- one atomic round trip.
--
-- KEYS[1]   the key's state
-- ARGV[1]   most permits to lease beyond the caller's
-- ARGV[2..] the algorithm's arguments as decision-prelude.lua takes them: now in microseconds or "" for Redis
--           TIME, permits, max-wait, algorithm parameter, limits
-- Reply     the algorithm's reply for the caller's permits (decision-prelude.lua: 8 numbers), then the permits
--           leased (0: none), and reset_after_us and that of the reported limit once they are taken

local algorithm = function(KEYS, ARGV)
  --@include /dev/limiter/internal/algorithm/{algorithm}.lua
end

local args = {}
for i = 2, #ARGV do
  args[i - 1] = ARGV[i]
end
if args[1] == '' then
  local t = redis.call('TIME')
  args[1] = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local first = algorithm(KEYS, args)
first[9], first[10], first[11] = 0, first[4], first[8]
-- Only permits left now, after the caller's: a lease never borrows from the future, so a caller
-- admitted to wait (no permits left) leases nothing.
local lease = math.min(tonumber(ARGV[1]), first[3])
if first[1] == 1 and first[7] == 0 and lease > 0 then
  args[2] = lease
  args[3] = 0
  local second = algorithm(KEYS, args)
  if second[1] == 1 then
    first[9], first[10], first[11] = lease, second[4], second[8]
  end
end
return first
