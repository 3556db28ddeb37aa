/**
 * The comparison report: one {@link dev.homing.bench.report.PolicyResult} per policy, gathered into a
 * {@link dev.homing.bench.report.Comparison} with the hit-rate bounds, written by
 * {@link dev.homing.bench.report.ComparisonReport#write} as Markdown, JSON and three SVG charts drawn here by hand
 * (no chart library).
 */
package dev.homing.bench.report;
