# The devices of our QEMU (scripts/build-qemu builds it with
# --without-default-devices): the q35 machine of every guest, with the
# platform parts that machine creates by itself, and virtio disks. The
# guests run with -nodefaults, so no VGA, network card or CD-ROM is
# created, and their code (graphics, USB, sound, network, SCSI and other
# cards no guest has) is not built: 214 of the 1136 objects of a build
# with Debian's default device set.
CONFIG_Q35=y
# Created by the pc machines whenever they are built in.
CONFIG_HPET=y
CONFIG_VMPORT=y
CONFIG_VMMOUSE=y
# The disks of the Debian guest and of undervoltctl tune's journal.
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_BLK=y
