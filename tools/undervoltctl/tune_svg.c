// SPDX-License-Identifier: GPL-2.0
/*
 * tune_svg.c: tune --report --svg: the search on record drawn as one
 * self-contained SVG file, for those who would rather look than read.
 *
 * A panel per plane searched, and one for core and cache run together
 * where the CPU does not couple them. In a panel each value tested is a
 * row, in the order tested: a mark on the millivolt axis, coloured by how
 * it ended, and a label with the value, the outcome and the seconds of
 * load. A plane that is settled shows the lowest value that passed, the
 * margin above it, and the value chosen, as the configuration has them.
 *
 * Everything drawn comes from the journal alone, and every mark carries
 * the journal's words as attributes (class "outcome-NAME", data-mv,
 * data-outcome...), so that a test can hold the drawing against the
 * journal it came from. The text drawn is numbers and fixed words only:
 * nothing read from a file or a user is quoted, so nothing needs escaping.
 */
#include <stdio.h>

#include "tune.h"
#include "undervoltctl.h"

#define WIDTH		960
#define PLOT_X0		90.0	/* the axis: its most negative end */
#define PLOT_X1		560.0	/* ... and its end nearest 0 mV */
#define LABEL_X		590.0	/* the column of labels */
#define ROW		22.0	/* one value tested */
#define HEADER		108.0	/* title, settings, legend */
#define PANEL_TOP	58.0	/* panel title, axis and its ticks */
#define PANEL_BOTTOM	64.0	/* the choice's labels below the rows */
#define FONT		"font-family=\"DejaVu Sans, Arial, sans-serif\""

/* Fill colours, by outcome; also in the legend and undervoltctl(8). */
static const char *const outcome_colour[TUNE_OUTCOME_COUNT] = {
	[TUNE_PASS] = "#2e7d32",
	[TUNE_WRONG] = "#ef6c00",
	[TUNE_STALL] = "#6a1b9a",
	[TUNE_MCE] = "#c62828",
	[TUNE_TAINT] = "#795548",
	[TUNE_CRASH] = "#212121",
};
#define UNDER_TEST_COLOUR	"#9e9e9e"

/* The millivolts a panel's axis spans, a multiple of TICK at each end. */
struct scale {
	int lo, hi, tick;
};

static void scale_add(struct scale *sc, int mv, bool *any)
{
	if (!*any || mv < sc->lo)
		sc->lo = mv;
	if (!*any || mv > sc->hi)
		sc->hi = mv;
	*any = true;
}

static void scale_round(struct scale *sc, const struct tune_journal *j)
{
	if (sc->hi < j->start)
		sc->hi = j->start;
	if (sc->hi < 0)
		sc->hi = 0;
	sc->tick = sc->hi - sc->lo > 250 ? 50 : 25;
	sc->lo = sc->lo - sc->tick / 2;
	/* Down to a multiple of the tick: C's division rounds toward 0. */
	sc->lo = sc->lo >= 0 ? sc->lo / sc->tick * sc->tick :
		 -((-sc->lo + sc->tick - 1) / sc->tick * sc->tick);
	sc->hi = (sc->hi + sc->tick - 1) / sc->tick * sc->tick;
	if (sc->hi <= sc->lo)
		sc->lo = sc->hi - sc->tick;
}

static double xpos(const struct scale *sc, int mv)
{
	return PLOT_X0 + (double)(mv - sc->lo) * (PLOT_X1 - PLOT_X0) /
			 (double)(sc->hi - sc->lo);
}

static void axis(FILE *f, const struct scale *sc, double top, double bottom)
{
	int mv;

	fprintf(f, "<g class=\"axis\" font-size=\"11\" fill=\"#444\">\n"
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#888\"/>\n", PLOT_X0, top, PLOT_X1, top);
	for (mv = sc->lo; mv <= sc->hi; mv += sc->tick)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
			"%d</text>\n", xpos(sc, mv), top, xpos(sc, mv), bottom,
			xpos(sc, mv), top - 5, mv);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">mV</text>\n</g>\n",
		PLOT_X1 + 12, top - 5);
}

/* A value tested: its row's mark and label. */
static void mark(FILE *f, const struct scale *sc, double y, size_t order,
		 enum plane plane, int mv, enum tune_outcome o,
		 unsigned int seconds)
{
	fprintf(f, "<g class=\"test outcome-%s\" data-plane=\"%s\" "
		"data-mv=\"%d\" data-outcome=\"%s\" data-seconds=\"%u\" "
		"data-order=\"%zu\">\n"
		"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\" "
		"stroke=\"#fff\"/>\n"
		"<text class=\"label\" x=\"%.1f\" y=\"%.1f\" font-size=\"13\">"
		"%zu. %d mV: %s, %u s</text>\n</g>\n",
		tune_outcome_name(o), plane_name(plane), mv,
		tune_outcome_name(o), seconds, order, xpos(sc, mv), y,
		outcome_colour[o], LABEL_X, y + 4, order, mv,
		tune_outcome_name(o), seconds);
}

/* The value of the step the search is in (or crashed in), not ended. */
static void mark_under_test(FILE *f, const struct scale *sc, double y,
			    size_t order, const char *plane, int mv)
{
	fprintf(f, "<g class=\"test under-test\" data-plane=\"%s\" "
		"data-mv=\"%d\" data-outcome=\"under-test\" data-order=\"%zu\">\n"
		"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" "
		"stroke=\"%s\" stroke-width=\"2\"/>\n"
		"<text class=\"label\" x=\"%.1f\" y=\"%.1f\" font-size=\"13\">"
		"%zu. %d mV: under test</text>\n</g>\n", plane, mv, order,
		xpos(sc, mv), y, UNDER_TEST_COLOUR, LABEL_X, y + 4, order, mv);
}

/*
 * The lowest value that passed, the margin above it and the value chosen,
 * across the rows from TOP to BOTTOM.
 */
static void choice(FILE *f, const struct scale *sc, const char *plane,
		   int lowest, int chosen, int margin, double top,
		   double bottom)
{
	double xl = xpos(sc, lowest), xc = xpos(sc, chosen);

	fprintf(f, "<g class=\"choice\" data-plane=\"%s\" data-mv=\"%d\" "
		"data-lowest=\"%d\" data-margin=\"%d\" font-size=\"12\">\n",
		plane, chosen, lowest, margin);
	fprintf(f, "<rect class=\"margin\" x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\" fill=\"#1565c0\" "
		"fill-opacity=\"0.12\"/>\n", xl, top, xc - xl, bottom - top);
	fprintf(f, "<line class=\"lowest\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#2e7d32\" stroke-dasharray=\"4 3\"/>\n"
		"<line class=\"chosen\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#1565c0\" stroke-width=\"2.5\"/>\n",
		xl, top, xl, bottom + 8, xc, top, xc, bottom + 26);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
		"fill=\"#2e7d32\">lowest pass %d mV</text>\n"
		"<text class=\"margin-label\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\" fill=\"#1565c0\">margin %d mV</text>\n"
		"<text class=\"chosen-label\" x=\"%.1f\" y=\"%.1f\" "
		"font-weight=\"bold\" fill=\"#1565c0\">chosen %d mV</text>\n"
		"</g>\n", xl - 3, bottom + 20, lowest, (xl + xc) / 2, top - 18,
		margin, xc + 4, bottom + 38, chosen);
}

static size_t plane_rows(const struct tune_journal *j, enum plane p)
{
	size_t i, n = 0;

	for (i = 0; i < j->nresults; i++)
		n += j->results[i].plane == p;
	return n + (j->in_step && !j->step_verify && j->step_plane == p);
}

static size_t verify_rows(const struct tune_journal *j)
{
	return j->nverify + (j->in_step && j->step_verify);
}

static double panel_height(size_t rows)
{
	return PANEL_TOP + (double)(rows ? rows : 1) * ROW + PANEL_BOTTOM;
}

static void panel_title(FILE *f, double y, const char *cls, const char *text,
			const char *plane)
{
	fprintf(f, "<g class=\"panel %s\" data-plane=\"%s\">\n"
		"<text x=\"20\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\">"
		"%s</text>\n", cls, plane, y + 20, text);
}

/* Plane I of the search: its values in the order tested. */
static double plane_panel(FILE *f, const struct tune_journal *j, size_t pi,
			  double y)
{
	enum plane p = j->planes[pi];
	size_t rows = plane_rows(j, p), i, order = 0;
	double top = y + PANEL_TOP, row = top + ROW / 2;
	struct scale sc = { 0, 0, 25 };
	bool any = false, found;
	char title[96];
	int lowest = 0, more = tune_next_value(j, p, &lowest, &found);

	for (i = 0; i < j->nresults; i++)
		if (j->results[i].plane == p)
			scale_add(&sc, j->results[i].mv, &any);
	if (j->in_step && !j->step_verify && j->step_plane == p)
		scale_add(&sc, j->step_mv, &any);
	if (!more && found)
		scale_add(&sc, tune_final_value(j, lowest), &any);
	scale_add(&sc, j->start, &any);
	scale_round(&sc, j);
	snprintf(title, sizeof(title), "%s%s", plane_name(p),
		 p == PLANE_CORE && j->coupled ?
		 " (cache set with it: one plane on this CPU)" : "");
	panel_title(f, y, "plane", title, plane_name(p));
	axis(f, &sc, top, top + (double)(rows ? rows : 1) * ROW);
	/* Under the marks, so that the band tints none of them. */
	if (!more && found)
		choice(f, &sc, plane_name(p), lowest,
		       tune_final_value(j, lowest), j->margin, top,
		       top + (double)(rows ? rows : 1) * ROW);
	for (i = 0; i < j->nresults; i++) {
		const struct tune_result *r = &j->results[i];

		if (r->plane != p)
			continue;
		mark(f, &sc, row, ++order, p, r->mv, r->outcome, r->seconds);
		row += ROW;
	}
	if (j->in_step && !j->step_verify && j->step_plane == p)
		mark_under_test(f, &sc, row, ++order, plane_name(p),
				j->step_mv);
	if (!rows)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">"
			"nothing tested yet</text>\n", LABEL_X, row + 4);
	if (!more && !found)
		fprintf(f, "<text class=\"no-offset\" x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"13\" font-weight=\"bold\" fill=\"%s\">"
			"unstable even at %d mV: no offset</text>\n", PLOT_X0,
			top + (double)(rows ? rows : 1) * ROW + 30,
			outcome_colour[TUNE_CRASH], j->start < 0 ? 0 : j->start);
	fprintf(f, "</g>\n");
	return y + panel_height(rows);
}

/* Core and cache together: a circle for core, a square for cache. */
static double verify_panel(FILE *f, const struct tune_journal *j, double y)
{
	size_t rows = verify_rows(j), i;
	double top = y + PANEL_TOP, row = top + ROW / 2, xc, xk;
	struct scale sc = { 0, 0, 25 };
	bool any = false;
	int core = 0, cache = 0;
	const char *fill;

	for (i = 0; i < j->nverify; i++) {
		scale_add(&sc, j->verify[i].core, &any);
		scale_add(&sc, j->verify[i].cache, &any);
	}
	if (j->in_step && j->step_verify) {
		scale_add(&sc, j->step_mv, &any);
		scale_add(&sc, j->step_cache, &any);
	}
	scale_round(&sc, j);
	panel_title(f, y, "together", "core (circle) and cache (square) "
		    "together: their results run as one", "together");
	axis(f, &sc, top, top + (double)rows * ROW);
	for (i = 0; i < rows; i++, row += ROW) {
		bool pending = i == j->nverify;
		const struct tune_verify *v = pending ? NULL : &j->verify[i];
		const char *name = pending ? "under-test" :
				   tune_outcome_name(v->outcome);

		core = pending ? j->step_mv : v->core;
		cache = pending ? j->step_cache : v->cache;
		fill = pending ? "none" : outcome_colour[v->outcome];
		xc = xpos(&sc, core);
		xk = xpos(&sc, cache);
		fprintf(f, "<g class=\"test together %s%s\" data-core=\"%d\" "
			"data-cache=\"%d\" data-outcome=\"%s\" "
			"data-order=\"%zu\">\n"
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#bbb\"/>\n"
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\" "
			"stroke=\"%s\" stroke-width=\"2\"/>\n"
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" "
			"fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			pending ? "" : "outcome-", name, core, cache, name,
			i + 1, xc, row, xk, row, xc, row, fill,
			pending ? UNDER_TEST_COLOUR : "#fff", xk - 5.5,
			row - 5.5, fill, pending ? UNDER_TEST_COLOUR : "#fff");
		fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"13\">%zu. core %d, cache %d mV: %s",
			LABEL_X, row + 4, i + 1, core, cache,
			pending ? "under test" : name);
		if (!pending)
			fprintf(f, ", %u s", v->seconds);
		fprintf(f, "</text>\n</g>\n");
	}
	if (j->nverify && j->verify[j->nverify - 1].outcome == TUNE_PASS) {
		const struct tune_verify *v = &j->verify[j->nverify - 1];

		fprintf(f, "<g class=\"choice together\" data-core=\"%d\" "
			"data-cache=\"%d\" font-size=\"12\" font-weight=\"bold\" "
			"fill=\"#1565c0\">\n<text class=\"chosen-label\" "
			"x=\"%.1f\" y=\"%.1f\">chosen: core %d mV, cache %d mV"
			"</text>\n</g>\n", v->core, v->cache, PLOT_X0,
			top + (double)rows * ROW + 30, v->core, v->cache);
	}
	fprintf(f, "</g>\n");
	return y + panel_height(rows);
}

static void legend(FILE *f, double y)
{
	double x = 20;
	int o;

	fprintf(f, "<g class=\"legend\" font-size=\"12\">\n");
	for (o = 0; o < TUNE_OUTCOME_COUNT; o++) {
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" "
			"fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			x + 6, y - 4, outcome_colour[o], x + 16, y,
			tune_outcome_name(o));
		x += 130;
	}
	fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" "
		"stroke=\"%s\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">"
		"under test</text>\n</g>\n", x + 6, y - 4, UNDER_TEST_COLOUR,
		x + 16, y);
}

int tune_svg(const struct tune_journal *j, FILE *f)
{
	bool together = verify_rows(j) > 0;
	double height = HEADER + 20, y;
	size_t i;

	for (i = 0; i < j->nplanes; i++)
		height += panel_height(plane_rows(j, j->planes[i]));
	if (together)
		height += panel_height(verify_rows(j));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\" %s>\n"
		"<title>undervoltctl tune: the values tested and the result"
		"</title>\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"#fff\"/>\n", WIDTH, height, WIDTH, height, FONT);
	fprintf(f, "<text class=\"title\" x=\"20\" y=\"30\" font-size=\"18\" "
		"font-weight=\"bold\">undervoltctl tune: %s, %zu value%s "
		"tested</text>\n", tune_state_name(j->state),
		j->nresults + j->nverify, j->nresults + j->nverify == 1 ?
		"" : "s");
	fprintf(f, "<text class=\"settings\" x=\"20\" y=\"52\" "
		"font-size=\"12\" fill=\"#444\">from %d mV down in steps of "
		"%d mV, then by halves to within %d mV; %u run%s of %u s per "
		"value; margin %d mV; limit %d mV</text>\n"
		"<text x=\"20\" y=\"68\" font-size=\"12\" fill=\"#444\">"
		"%u crash%s in a row; each row a value, top to bottom in the "
		"order tested</text>\n", j->start, j->step, j->resolution,
		j->runs, j->runs == 1 ? "" : "s", j->duration, j->margin,
		j->limit, j->crashes, j->crashes == 1 ? "" : "es");
	legend(f, 96);
	y = HEADER;
	for (i = 0; i < j->nplanes; i++)
		y = plane_panel(f, j, i, y);
	if (together)
		verify_panel(f, j, y);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}
