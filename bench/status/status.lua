-- wrk script of `make bench-status`: GET /intents/status/v3 for random requests of the seeded
-- database (IDS_FILE: one requestId a line), with the dev key (INTENTD_API_KEY) when set.
local ids = {}
for line in io.lines(os.getenv("IDS_FILE")) do ids[#ids + 1] = line end
local key = os.getenv("INTENTD_API_KEY") or ""
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
request = function()
  local id = ids[math.random(#ids)]
  if key ~= "" then
    return wrk.format("GET", "/intents/status/v3?requestId=" .. id, { ["x-api-key"] = key })
  end
  return wrk.format("GET", "/intents/status/v3?requestId=" .. id)
end
