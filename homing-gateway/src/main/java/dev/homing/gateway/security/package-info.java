/**
 * Who may use the gateway and what it may be pointed at: constant-time API key checks, the split between public,
 * inference and admin routes (admin closed unless a key is set or the operator opts out), the allow list of hosts
 * that {@code POST /workers} may register, and the tests that throw malformed input at the request path.
 */
package dev.homing.gateway.security;
