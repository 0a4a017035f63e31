// Register offsets and bits of the 82599 for the tests, written down from the datasheet (8.2.3) independently of
// the driver (and of the model's own table, so that a typo in one shows up against the other).
#ifndef IXY_TEST_MODEL_TEST_REGS_H
#define IXY_TEST_MODEL_TEST_REGS_H

#define R_CTRL 0x00000
#define R_STATUS 0x00008
#define R_CTRL_EXT 0x00018
#define R_EICR 0x00800
#define R_EIMS 0x00880
#define R_EIMC 0x00888
#define R_EEC 0x10010
#define R_RDBAL(q) (0x01000 + 0x40 * (q))
#define R_RDBAH(q) (0x01004 + 0x40 * (q))
#define R_RDLEN(q) (0x01008 + 0x40 * (q))
#define R_DCA_RXCTRL(q) (0x0100C + 0x40 * (q))
#define R_RDH(q) (0x01010 + 0x40 * (q))
#define R_SRRCTL(q) (0x01014 + 0x40 * (q))
#define R_RDT(q) (0x01018 + 0x40 * (q))
#define R_RXDCTL(q) (0x01028 + 0x40 * (q))
#define R_QPRDC(i) (0x01430 + 0x40 * (i))
#define R_SRRCTL_ALIAS(q) (0x02100 + 4 * (q))
#define R_RDRXCTL 0x02F00
#define R_RXCTRL 0x03000
#define R_MPC0 0x03FA0
#define R_GPRC 0x04074
#define R_GPTC 0x04080
#define R_GORCL 0x04088
#define R_GORCH 0x0408C
#define R_GOTCL 0x04090
#define R_GOTCH 0x04094
#define R_HLREG0 0x04240
#define R_AUTOC 0x042A0
#define R_LINKS 0x042A4
#define R_DMATXCTL 0x04A80
#define R_FCTRL 0x05080
#define R_RAL0_ALIAS 0x05400
#define R_TDBAL(q) (0x06000 + 0x40 * (q))
#define R_TDBAH(q) (0x06004 + 0x40 * (q))
#define R_TDLEN(q) (0x06008 + 0x40 * (q))
#define R_TDH(q) (0x06010 + 0x40 * (q))
#define R_TDT(q) (0x06018 + 0x40 * (q))
#define R_TXDCTL(q) (0x06028 + 0x40 * (q))
#define R_DTXMXSZRQ 0x08100
#define R_SECRXCTRL 0x08D00
#define R_SECRXSTAT 0x08D04
#define R_RAL(n) (0x0A200 + 8 * (n))
#define R_RAH(n) (0x0A204 + 8 * (n))

#define CTRL_RST (1u << 26)
#define EEC_ARD (1u << 9)
#define RDRXCTL_CRCSTRIP (1u << 1)
#define RDRXCTL_DMAIDONE (1u << 3)
#define RDRXCTL_RSCACKC (1u << 25)
#define RDRXCTL_FCOE_WRFIX (1u << 26)
#define LINKS_UP (1u << 30)
#define LINKS_SPEED_MASK (3u << 28)
#define LINKS_SPEED_10G (3u << 28)
#define LINKS_SPEED_1G (2u << 28)
#define AUTOC_RESTART_AN (1u << 12)
#define AUTOC_LMS_10G_SERIAL (3u << 13)
#define AUTOC_LMS_1G_AN (2u << 13)
#define ENABLE (1u << 25)
#define SRRCTL_ADV_ONEBUF (1u << 25)
#define SRRCTL_DROP_EN (1u << 28)
#define FCTRL_MPE (1u << 8)
#define FCTRL_UPE (1u << 9)
#define FCTRL_BAM (1u << 10)
#define TXD_DATA ((3u << 20) | (1u << 29)) // DTYP data, DEXT
#define TXD_EOP (1u << 24)
#define TXD_IFCS (1u << 25)
#define TXD_RS (1u << 27)

#endif
