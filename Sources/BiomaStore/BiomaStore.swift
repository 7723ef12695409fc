import BiomaCore
