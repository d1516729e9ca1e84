-- Every limit's counts, for several limits and for refunds: size[i], the length of limit i's
-- sub-windows; current[i], its current sub-window (a sub-window newer than the clock's becomes it);
-- live[i], the counts that still count under it as {s, permits, field}, in no order; and stale, the
-- fields of those that left (at this time).
local size, current, live = {}, {}, {}
for i = 1, count do
  size[i] = tonumber(ARGV[3 * i + 3]) / sub_windows
  current[i] = divmod(now, size[i])
  live[i] = {}
end
local stored = redis.call('HGETALL', key)
local counts = {}
for k = 1, #stored, 2 do
  local field = stored[k]
  local colon = string.find(field, ':', 1, true)
  local i = tonumber(string.sub(field, 1, colon - 1))
  local s = tonumber(string.sub(field, colon + 1))
  if s > current[i] then
    current[i] = s
  end
  counts[#counts + 1] = {field, i, s, tonumber(stored[k + 1])}
end
local stale = {}
for _, c in ipairs(counts) do
  local field, i, s = c[1], c[2], c[3]
  if s <= current[i] - sub_windows then
    stale[#stale + 1] = field
  else
    live[i][#live[i] + 1] = {s, c[4], field}
  end
end
