-- batch: several decisions in one script call (ScriptBatches), each decided exactly as its
-- algorithm's own script decides it alone, one after the other in the order given, so that two
-- decisions on one key see each other as two calls would. The fixed cost of a call (EVALSHA, TIME,
-- the reply) is paid once for the batch instead of once per decision (docs/script-costs.md).
-- LuaScript puts in place of the algorithms line below one function per algorithm: decide.lua and the
-- algorithm's script, unchanged, with KEYS and ARGV as the function's parameters.
--
-- KEYS[i]   the key of decision i (every key of a batch in one hash slot)
-- ARGV      for each decision, in the order of KEYS: the algorithm's index (LuaScript), the count n
--           of its arguments, then its n arguments as its own script takes them; a time of ""
--           (Redis TIME) is replaced by one TIME read for the whole batch
-- Reply     for each decision, in order, the 8 numbers of its script's reply; a decision that
--           raised an error gives the error's message in place of the first and 0 for the others

local algorithms = {}
--[[ algorithms ]]

local now
local replies = {}
local at = 1
for i = 1, #KEYS do
  local algorithm, count = tonumber(ARGV[at]), tonumber(ARGV[at + 1])
  local args = {}
  for j = 1, count do
    args[j] = ARGV[at + 1 + j]
  end
  at = at + 2 + count
  if args[1] == '' then
    if not now then
      local t = redis.call('TIME')
      now = string.format('%d', tonumber(t[1]) * 1000000 + tonumber(t[2]))
    end
    args[1] = now
  end
  local ok, reply = pcall(algorithms[algorithm], {KEYS[i]}, args)
  local base = 8 * (i - 1)
  if ok then
    for j = 1, 8 do
      replies[base + j] = reply[j]
    end
  else
    replies[base + 1] = (type(reply) == 'table' and reply.err) or tostring(reply)
    for j = 2, 8 do
      replies[base + j] = 0
    end
  end
end
return replies
