-- charge: takes permits from a key whatever its limits say, for a call whose actual cost came out above
-- the estimate it was admitted for (RateLimiter#settle, docs/settled-costs.md). Beyond the limit the
-- key is in debt: later decisions wait or are rejected until time has paid it off. Twin:
-- dev.limiter.internal.algorithm.LocalAlgorithm#charge. Assembled by Scripts from the --@include
-- lines, {algorithm} naming the algorithm it is assembled for.
--
-- The algorithm's decision script is included below as the body of the function decide(KEYS, ARGV),
-- whose parameters shadow the globals and which returns its reply, as lease.lua and batch.lua do. The
-- charge is a run of its decisions at one instant, each for at most the smallest capacity of the
-- limits (all a decision can take) and with a max-wait beyond any wait, so each is admitted as a
-- caller that waits would be: the arithmetic of the debt is the decision's own, and so is the TTL of
-- the key, which lasts until the debt is paid off.
--
-- KEYS[1]   the key's state
-- ARGV[1]   now in microseconds, or "" to read Redis TIME (once, for every decision of the charge)
-- ARGV[2]   permits to charge, at least 1
-- ARGV[3]   the most permits one decision takes: the smallest capacity of the limits
-- ARGV[4..] the algorithm's arguments from the fourth on, as decision-prelude.lua takes them
-- Reply     as a decision's: the key's quota after the charge (remaining 0 while in debt); allowed,
--           retry-after, violated and wait are 0 and mean nothing

local decide = function(KEYS, ARGV)
  --@include /dev/limiter/internal/algorithm/{algorithm}.lua
end

local args = {}
for i = 1, #ARGV do
  args[i] = ARGV[i]
end
if args[1] == '' then
  local t = redis.call('TIME')
  args[1] = string.format('%d', tonumber(t[1]) * 1000000 + tonumber(t[2]))
end
local left, chunk = tonumber(ARGV[2]), tonumber(ARGV[3])
-- 2^53 - 1: a wait no decision computes, so every decision admits its permits.
args[3] = '9007199254740991'
local reply
while left > 0 do
  local take = (left < chunk) and left or chunk
  args[2] = string.format('%d', take)
  reply = decide(KEYS, args)
  if reply[1] ~= 1 then
    error('a charge of ' .. args[2] .. ' permits was not admitted (violated limit ' .. tostring(reply[6]) .. ')')
  end
  left = left - take
end
reply[1], reply[5], reply[6], reply[7] = 0, 0, 0, 0
return reply
