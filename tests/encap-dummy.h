/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dummy encapsulation's line of the table, for the test build that
 * has it (unit-encap-dummy, given by -include): encap.h's ENCAP_LIST
 * puts it after its own rows. A real encapsulation writes the same line
 * into ENCAP_LIST itself.
 */
#ifndef GSOTUN_TESTS_ENCAP_DUMMY_H
#define GSOTUN_TESTS_ENCAP_DUMMY_H

#define ENCAP_LIST_TEST(X) X(DUMMY, dummy)

#endif
