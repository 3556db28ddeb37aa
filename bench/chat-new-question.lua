-- wrk: a short non-streaming chat completion of one output token (about 200 characters of prompt), its question new at
-- every request (a counter in it), the system prompt shared: what a gateway tokenizing for the exact view meets when
-- a fleet's clients ask their own questions.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

local counter = 0
request = function()
  counter = counter + 1
  wrk.body = '{"messages":[{"role":"system","content":"You are a terse assistant for the request budget benchmark."},'
          .. '{"role":"user","content":"Question ' .. counter .. ': in one word, which colour is the sky over the sea '
          .. 'on a clear summer afternoon?"}],"max_tokens":1,"stream":false}'
  return wrk.format()
end
