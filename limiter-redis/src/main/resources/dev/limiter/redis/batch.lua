-- batch: several decisions in one script call (ScriptBatches), each decided exactly as its
-- algorithm's own script decides it alone, one after the other in the order given, so that two
-- decisions on one key see each other as two calls would. The fixed cost of a call (EVALSHA, TIME,
-- the reply) is paid once for the batch instead of once per decision (docs/script-costs.md), and so
-- are the arguments that the decisions of one configuration share.
-- Each algorithm's decision script is included below (Scripts, the assembler of the algorithms'
-- scripts in limiter-core, expands the --@include lines) as the body of a function whose parameters
-- KEYS and ARGV shadow the globals: the script reads the key and arguments it is given, and its
-- return becomes the function's. The index of each is LuaScript's batch index of the algorithm, its
-- place in dev.limiter.Algorithm (LuaScriptTest checks them).
--
-- KEYS[i]   the key of decision i (every key of a batch in one hash slot)
-- ARGV      the count c of configurations; for each configuration, the algorithm's index (LuaScript),
--           the count n of its script's arguments, then that script's arguments 3 to n (max-wait,
--           parameter, limits), which all its decisions share; then for each decision, in the order
--           of KEYS, the number of its configuration (1 to c), its time (its script's ARGV[1]; ""
--           for Redis TIME, read once for the whole batch) and its permits (ARGV[2])
-- Reply     for each decision, in order, the 8 numbers of its script's reply; a decision that
--           raised an error gives the error's message in place of the first and 0 for the others

local algorithms = {}
algorithms[1] = function(KEYS, ARGV)
  --@include /dev/limiter/internal/algorithm/fixed-window.lua
end
algorithms[2] = function(KEYS, ARGV)
  --@include /dev/limiter/internal/algorithm/sliding-window.lua
end
algorithms[3] = function(KEYS, ARGV)
  --@include /dev/limiter/internal/algorithm/sliding-log.lua
end
algorithms[4] = function(KEYS, ARGV)
  --@include /dev/limiter/internal/algorithm/token-bucket.lua
end
algorithms[5] = function(KEYS, ARGV)
  --@include /dev/limiter/internal/algorithm/leaky-bucket.lua
end
algorithms[6] = function(KEYS, ARGV)
  --@include /dev/limiter/internal/algorithm/gcra.lua
end

-- The scripts only read their KEYS and ARGV: one table of each serves every decision of a
-- configuration, with the decision's own key, time and permits put in.
local configurations = {}
local at = 2
for c = 1, tonumber(ARGV[1]) do
  local count = tonumber(ARGV[at + 1])
  local args = {'', ''}
  for j = 3, count do
    args[j] = ARGV[at + j - 1]
  end
  configurations[c] = {algorithms[tonumber(ARGV[at])], args}
  at = at + count
end

local now
local keys = {}
local replies = {}
for i = 1, #KEYS do
  local configuration = configurations[tonumber(ARGV[at])]
  local args = configuration[2]
  local time = ARGV[at + 1]
  if time == '' then
    if not now then
      local t = redis.call('TIME')
      now = string.format('%d', tonumber(t[1]) * 1000000 + tonumber(t[2]))
    end
    time = now
  end
  args[1] = time
  args[2] = ARGV[at + 2]
  at = at + 3
  keys[1] = KEYS[i]
  local ok, reply = pcall(configuration[1], keys, args)
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
