-- Allocation-heavy Lua script for bench/runtime/real.sh: a heap of millions of small blocks
-- (tables, strings, closures, upvalues) built, churned and dropped in rounds, with string
-- building and pattern matching on the side. Usage: lua alloc.lua [ROUNDS] (default 2).
-- Prints a checksum, so every build can be seen to compute the same thing.
local rounds = tonumber(arg and arg[1]) or 2
local N = 100000

local function record(i, round)
  local name = "item" .. i .. ":" .. round
  local r = {id = i, name = name, tags = {i % 7, i % 11, i % 13}}
  local hits = 0
  r.get = function() hits = hits + 1; return r.id + #r.name + hits end
  return r
end

local kept = {}
local sum = 0
for round = 1, rounds do
  -- A live set: N records of 5-6 small blocks each (table, array part, string, closure,
  -- upvalues), kept for two rounds so the heap holds two or three of them at once.
  local live = {}
  for i = 1, N do live[i] = record(i, round) end

  -- Churn: read records through their closures, replace a third of them.
  for j = 1, 2 * N do
    local k = (j * 7919) % N + 1
    local r = live[k]
    sum = sum + r.get()
    if j % 3 == 0 then
      local n = {id = k, name = string.format("%s-%d", r.name:sub(1, 8), j), tags = {j}, get = r.get}
      live[k] = n
    end
  end

  -- Strings: build, join, split and rewrite.
  local parts = {}
  for j = 1, N do parts[j] = tostring(j * round) end
  local s = table.concat(parts, ",")
  for w in s:gmatch("%d+") do sum = sum + #w end
  local t = s:sub(1, 200000):gsub("(%d)(%d)", "%2%1")
  sum = sum + #t

  -- Short-lived tables: a sort of small records.
  local arr = {}
  for j = 1, N // 2 do arr[j] = {key = (j * 31337) % 1000003, val = j} end
  table.sort(arr, function(a, b) return a.key < b.key end)
  sum = sum + arr[1].val

  kept[round % 2] = live
end
print(string.format("checksum %d", sum))
