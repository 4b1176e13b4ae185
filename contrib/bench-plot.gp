# SPDX-License-Identifier: GPL-2.0-or-later
# Bar chart of contrib/bench.sh's results: each row's figures as ratios to
# the kernel's vxlan, all drawn so that higher is better.
#
# Usage: gnuplot -e "datafile='bench-out/plot.dat'" \
#                -e "outfile='bench-out/bench.png'" contrib/bench-plot.gp
# plot.dat, tab-separated: a "#" comment line, then one line per row:
# "label" tcp1 tcp4 udp64 rr cpu bulk (ratios; NA where a measure is
# missing).

if (!exists("datafile")) datafile = 'bench-out/plot.dat'
if (!exists("outfile")) outfile = 'bench-out/bench.png'
if (!exists("subtitle")) subtitle = ''

set terminal pngcairo size 1280,640 font "sans,12"
set output outfile
set datafile separator "\t"
set datafile missing "NA"

set title "gsotun vs the kernel's vxlan (ratio to the kernel, higher is better)\n{/*0.8 ".subtitle."}"
set ylabel "ratio to kernel vxlan"
set yrange [0:*]
# Room above the tallest bar for its value.
set offsets 0, 0, graph 0.08, 0
set grid ytics lc rgb "#dddddd"
set key below horizontal maxrows 1 samplen 2 width 1
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics nomirror scale 0
stats datafile using (1) nooutput
set xrange [-0.6:STATS_records - 0.4]
set border 3

# Six series per cluster, gap 1: each bar is 1/7 of a unit wide, the
# cluster centred on its x value.
n = 6
w = 1.0 / (n + 1)
xof(i) = (i - (n - 1) / 2.0) * w
lbl(v) = (v != v) ? "" : (v < 0.1 ? sprintf("%.2g", v) : sprintf("%.2f", v))

set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 \
	lc rgb "#444444" front

plot datafile using 2:xtic(1) title "TCP 1 stream" lc rgb "#1f77b4", \
     '' using 3 title "TCP 4 streams" lc rgb "#2ca02c", \
     '' using 4 title "UDP 64 B pps" lc rgb "#ff7f0e", \
     '' using 5 title "RR/s pinned" lc rgb "#9467bd", \
     '' using 6 title "1 / CPU per KB" \
	lc rgb "#8c564b", \
     '' using 7 title "bulk UDP (GSO)" lc rgb "#d62728", \
     for [i = 0:n - 1] '' using ($0 + xof(i)):(column(i + 2)): \
	(lbl(column(i + 2))) with labels offset 0,0.7 font ",8" notitle
