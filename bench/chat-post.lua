-- wrk: a small non-streaming chat completion of one output token, with a session header out of 64 (the key of
-- HAProxy's consistent-hash row; the other rows ignore it).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"messages":[{"role":"system","content":"You are a terse assistant for the proxy overhead benchmark."},'
        .. '{"role":"user","content":"Say one word."}],"max_tokens":1,"stream":false}'

local counter = 0
request = function()
  counter = counter + 1
  wrk.headers["X-Session-Id"] = tostring(counter % 64)
  return wrk.format()
end
