-- fixed-window: at most L permits per window, windows aligned to the epoch (docs/algorithms.md).
-- Twin: dev.limiter.FixedWindow. Follows decide.lua, which reads the time and the arguments.
--
-- KEYS[1]  string of 2n doubles, little-endian (struct.pack('<d...')), for n limits: w<i> = index of
--          the window limit i counts, n<i> = permits taken in it; whole numbers below 2^53, which a
--          double holds exactly. An absent key (or one of another length) has taken nothing. One
--          string of doubles rather than a hash of decimals: GET, struct.unpack and one SET ... PX cost
--          Redis less than HMGET, tonumber, HSET and PEXPIRE (docs/script-costs.md). The key's tail
--          (fw2) differs from that of the hash layout (fw), so that no script reads the other layout
--          during a rolling deploy.
-- ARGV[4]  unused
--
-- Straight-line code, no tables but the reply (docs/script-costs.md): one limit has its own path;
-- several limits take two passes, decide, then apply-and-report.

local key = KEYS[1]
local format = string.format
local pack, unpack_doubles = struct.pack, struct.unpack

if count == 1 then
  local limit, window = tonumber(ARGV[5]), tonumber(ARGV[6])
  local stored = redis.call('GET', key)
  local index = divmod(now, window)
  local used = 0
  if stored and #stored == 16 then
    local stored_index, stored_used = unpack_doubles('<dd', stored)
    -- A clock that went back stands still in the newer window it counted: nothing is forgotten.
    if stored_index >= index then
      index, used = stored_index, stored_used
    end
  end
  local window_end = (index + 1) * window - now
  local allowed, wait, violated, retry_after = false, 0, 0, 0
  if permits == 0 then
    -- Reads the quota: nothing taken, nothing written.
  elseif permits > limit then
    violated, retry_after = 1, -1
  elseif used + permits <= limit then
    allowed = true
  elseif window_end <= max_wait then
    allowed, wait = true, window_end
  else
    violated, retry_after = 1, window_end
  end
  if allowed then
    used = used + permits
    local ms = ceildiv(window_end, 1000)
    redis.call('SET', key, pack('<dd', index, used), 'PX', format('%d', (ms > 1) and ms or 1))
  end
  local reset = (used > 0) and window_end or 0
  local remaining = limit - used
  return {allowed and 1 or 0, 1, (remaining > 0) and remaining or 0, reset, retry_after, violated, wait, reset}
end

local layout = '<' .. string.rep('d', 2 * count)
local stored = {}
local value = redis.call('GET', key)
if value and #value == 16 * count then
  stored = {unpack_doubles(layout, value)}
end

-- Pass 1: each limit's window; the first limit the cost exceeds, and the longest wait.
local state = {}
local over, worst, violated = 0, 0, 0
for i = 1, count do
  local limit, window = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3])
  local index = divmod(now, window)
  local used = 0
  local stored_index = stored[2 * i - 1]
  if stored_index and stored_index >= index then
    index, used = stored_index, stored[2 * i]
  end
  local window_end = (index + 1) * window - now
  state[4 * i - 3], state[4 * i - 2], state[4 * i - 1], state[4 * i] = limit, index, used, window_end
  if permits > limit then
    if over == 0 then
      over = i
    end
  elseif used + permits > limit and window_end > worst then
    worst, violated = window_end, i
  end
end
local allowed, wait, retry_after = false, 0, 0
if permits == 0 then
  violated = 0
elseif over > 0 then
  violated, retry_after = over, -1
elseif worst == 0 then
  allowed = true
elseif worst <= max_wait then
  allowed, wait, violated = true, worst, 0
else
  retry_after = worst
end

-- Pass 2: apply the decision; the reply's lowest remaining and the resets.
local values = allowed and {}
local reported, lowest, reported_reset, reset_after = 0, 0, 0, 0
for i = 1, count do
  local limit, index, used, window_end = state[4 * i - 3], state[4 * i - 2], state[4 * i - 1], state[4 * i]
  if allowed then
    used = used + permits
    values[2 * i - 1], values[2 * i] = index, used
  end
  local remaining = limit - used
  local reset = (used > 0) and window_end or 0
  if reported == 0 or remaining < lowest then
    reported, lowest, reported_reset = i, remaining, reset
  end
  if reset > reset_after then
    reset_after = reset
  end
end
if allowed then
  local ms = ceildiv(reset_after, 1000)
  redis.call('SET', key, pack(layout, unpack(values)), 'PX', format('%d', (ms > 1) and ms or 1))
end
return {allowed and 1 or 0, reported, (lowest > 0) and lowest or 0, reset_after, retry_after, violated, wait, reported_reset}
