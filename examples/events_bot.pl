#!/usr/bin/env perl
# A Jackal bot in Perl that follows the whole match, core Perl only:
#   jackal bot --exec "perl examples/events_bot.pl" --exec-events all
# With --exec-events all, every event of the seat comes in on stdin, one JSON line each;
# only your_turn is answered (one card on stdout). It plays as stdin_bot.py does (keep
# pairs, give up lone cards highest first), and on stderr it tells its own story: the
# cards in force each deal, each deal's result, and the match's.
use strict;
use warnings;
use JSON::PP;

$| = 1;    # one answer per line, flushed at once
my %TEAM = (N => 'NS', S => 'NS', E => 'EW', W => 'EW');
my $RANKS = 'A23456789TJQK';
my ($team, $won, $deals) = ('', 0, 0);

while (my $line = <STDIN>) {
    my $msg  = decode_json($line);
    my $type = $msg->{type};
    if ($type eq 'table_state') {
        $team = $TEAM{ $msg->{you} } // '';
    } elsif ($type eq 'convention_cards') {
        my %cards = %{ $msg->{cards} };
        my ($ours, $theirs) = map { $cards{$_}{name} } $team, ($team eq 'NS' ? 'EW' : 'NS');
        print STDERR "deal $msg->{deal}: we play $ours, they play $theirs\n";
    } elsif ($type eq 'your_turn') {
        my %count;
        $count{ substr($_, 0, 1) }++ for @{ $msg->{hand} };
        # Fewest of its rank first, then the highest rank: the card to give up.
        my ($card) = sort {
            $count{ substr($a, 0, 1) } <=> $count{ substr($b, 0, 1) }
              || index($RANKS, substr($b, 0, 1)) <=> index($RANKS, substr($a, 0, 1))
        } @{ $msg->{hand} };
        print "$card\n";
    } elsif ($type eq 'deal_ended') {
        $deals++;
        my $winner = $msg->{winner} // 'nobody';
        $won++ if $winner eq $team;
        print STDERR "deal $msg->{deal}: penalties NS $msg->{penalty}{NS}, "
          . "EW $msg->{penalty}{EW}; $winner wins\n";
    } elsif ($type eq 'match_ended') {
        print STDERR "match over: we won $won of $deals deals; $msg->{winner} wins the match\n";
    }    # any other line (turn, played, chat, ...): nothing to do
}
