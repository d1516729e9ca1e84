-- What the refund scripts add to decide.lua (LuaScript sends decide.lua, this, then the refund
-- script): the limits as a table, the reply that reports several limits' quotas, and the state kept
-- as a string of doubles (read and written with its TTL), built on
-- decide.lua's time, permits and exact arithmetic (divmod, muldivmod, ceildiv). See
-- docs/algorithms.md. The decision scripts go without these tables and closures, which Redis would
-- pay for on every call (docs/script-costs.md).
--
-- KEYS[1]   the key's state
-- ARGV[1]   now in microseconds, or "" to read Redis TIME
-- ARGV[2]   permits asked for; 0 reads the quota without taking or writing anything
-- ARGV[3]   max-wait in microseconds (unused: nothing here waits)
-- ARGV[4]   algorithm parameter (sub-windows of sliding-window) or ""
-- ARGV[5..] limits sorted by window: L1, W1, B1, L2, W2, B2, ...
-- Reply     {allowed 1|0, reported limit, remaining, reset_after_us, retry_after_us (-1: never),
--            violated limit (0: none), wait_us, reset_after_us of the reported limit}

local param = ARGV[4]
local limits = {}
for i = 5, #ARGV, 3 do
  limits[#limits + 1] = {limit = tonumber(ARGV[i]), window = tonumber(ARGV[i + 1]), burst = tonumber(ARGV[i + 2])}
end

-- The reply, from each limit's remaining permits and reset-after once the decision is applied.
local function reply(allowed, wait, violated, retry_after, remaining, reset)
  local reported, reset_after = 1, 0
  for i = 1, #limits do
    if remaining[i] < remaining[reported] then
      reported = i
    end
    if reset[i] > reset_after then
      reset_after = reset[i]
    end
  end
  return {allowed and 1 or 0, reported, math.max(0, remaining[reported]), reset_after, retry_after, violated, wait, reset[reported]}
end

-- How long the state differs from an absent key: until every limit is whole again, in whole
-- milliseconds rounded up, at least 1 (PEXPIRE's or SET PX's argument).
local function ttl(reset)
  local longest = 0
  for i = 1, #limits do
    if reset[i] > longest then
      longest = reset[i]
    end
  end
  return string.format('%d', math.max(1, ceildiv(longest, 1000)))
end

-- Keeps a hash's state only as long as it differs from an absent key.
local function expire(reset)
  redis.call('PEXPIRE', KEYS[1], ttl(reset))
end

-- The key's state kept as n doubles, little-endian (struct.pack('<d...'): fixed-window, the buckets
-- and gcra): the numbers as a table, empty when the key is absent or holds another layout (another
-- length); and the layout, for store_doubles.
local function stored_doubles(n)
  local layout = '<' .. string.rep('d', n)
  local value = redis.call('GET', KEYS[1])
  if value and #value == 8 * n then
    return {struct.unpack(layout, value)}, layout
  end
  return {}, layout
end

-- Writes values as the key's state in that layout, kept only as long as it differs from an absent key.
local function store_doubles(layout, values, reset)
  redis.call('SET', KEYS[1], struct.pack(layout, unpack(values)), 'PX', ttl(reset))
end
