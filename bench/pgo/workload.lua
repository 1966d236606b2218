-- Lua workload for bench/pgo/run.sh: table, string, closure and metatable work, deterministic.
-- Usage: lua workload.lua ROUNDS [SCALE]; SCALE (default 1) shrinks the work of each round.
local rounds = tonumber(arg[1]) or 10
local scale = tonumber(arg[2]) or 1
local function size(k) return math.max(1, math.floor(k * scale)) end

-- A linear congruential generator: the same numbers on every run and every Lua build.
local seed = 12345
local function rand(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

local words = {}
for i = 1, 400 do
  local t = {}
  for j = 1, 3 + rand(8) do t[j] = string.char(97 + rand(26)) end
  words[i] = table.concat(t)
end

local Vec = {}
Vec.__index = Vec
Vec.__add = function(a, b) return setmetatable({x = a.x + b.x, y = a.y + b.y}, Vec) end
function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end
function Vec:len2() return self.x * self.x + self.y * self.y end

local checksum = 0
for r = 1, rounds do
  -- word frequencies in a hash table, then sorted by count and name
  local freq = {}
  for i = 1, size(3000) do
    local w = words[rand(#words) + 1]
    freq[w] = (freq[w] or 0) + 1
  end
  local list = {}
  for w, c in pairs(freq) do list[#list + 1] = {w = w, c = c} end
  table.sort(list, function(a, b) if a.c ~= b.c then return a.c > b.c end return a.w < b.w end)
  checksum = checksum + list[1].c

  -- string building and pattern matching
  local parts = {}
  for i = 1, size(300) do
    parts[i] = string.format("%s=%d;", words[rand(#words) + 1], rand(1000))
  end
  local s = table.concat(parts)
  local n = 0
  for k, v in s:gmatch("(%a+)=(%d+);") do
    if #k > 4 then n = n + tonumber(v) end
  end
  s = s:gsub("[aeiou]", string.upper)
  checksum = checksum + n + #s

  -- closures and metatables
  local acc = Vec.new(0, 0)
  for i = 1, size(2000) do
    acc = acc + Vec.new(rand(10) - 5, rand(10) - 5)
  end
  checksum = checksum + acc:len2()

  -- array work: fill, filter, reduce
  local arr = {}
  for i = 1, size(5000) do arr[i] = rand(100000) end
  local evens = {}
  for _, v in ipairs(arr) do if v % 2 == 0 then evens[#evens + 1] = v end end
  local sum = 0
  for i = 1, #evens do sum = sum + evens[i] % 97 end
  checksum = checksum + sum
end
print(string.format("rounds=%d checksum=%d", rounds, checksum))
